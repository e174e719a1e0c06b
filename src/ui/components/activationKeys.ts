/**
 * Enter and Space on an element that acts as a button (role="button" on a div): the keys a real button answers to,
 * calling `action` instead of typing or scrolling.
 */
import type { KeyboardEvent } from 'react';

export const onEnterOrSpace = (action: () => void) => (e: KeyboardEvent) => {
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    action();
  }
};
