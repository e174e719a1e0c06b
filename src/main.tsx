/**
 * The page's entry: styles and the React root. Kept tiny so the empty state paints at once; workers
 * and anything heavy load on first use.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './ui/App.tsx';
import './ui/styles/base.css';
import './ui/styles/components.css';
import './ui/features/model/model.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
