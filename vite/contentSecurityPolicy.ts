/**
 * A Content-Security-Policy for the built page: everything from its own origin, nothing from anywhere
 * else (the studio promises that no byte of a model leaves the machine, and it loads no fonts,
 * scripts or analytics from elsewhere).
 *
 * Build only: the dev server injects inline scripts (React refresh) that a strict policy would block.
 * 'wasm-unsafe-eval' lets onnxruntime compile its WebAssembly; blob: workers and URLs are what
 * onnxruntime and downloads create locally. Inline styles stay allowed for computed widths (bar charts).
 */
import type { Plugin } from 'vite';

const POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self' blob: data:",
  "img-src 'self' blob: data:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

export function contentSecurityPolicyPlugin(): Plugin {
  return {
    name: 'quant-studio:csp',
    apply: 'build',
    transformIndexHtml() {
      return [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: POLICY }, injectTo: 'head-prepend' },
      ];
    },
  };
}
