// The page's build: React, ES module workers, and cross-origin isolation (COOP/COEP) so onnxruntime
// can run threads later. The sample model and the CSP are small plugins of their own in vite/.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { sampleModelPlugin } from './vite/sampleModelPlugin.ts';
import { contentSecurityPolicyPlugin } from './vite/contentSecurityPolicy.ts';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react(), sampleModelPlugin(), contentSecurityPolicyPlugin()],
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  server: { port: 5173, strictPort: true, headers: isolation },
  preview: { port: 4173, strictPort: true, headers: isolation },
});
