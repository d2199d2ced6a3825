// The console's bundle: Scalar's API client and its styles, built into dist/console/ beside the page, so that the
// site loads nothing from a CDN. The page imports console.js when a reader first presses "Try it".
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: resolve(import.meta.dirname, '..', 'dist', 'console'),
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 4096,
    // One file: the server serves the console as console.js and console.css, nothing else.
    rolldownOptions: { output: { codeSplitting: false } },
    lib: {
      entry: resolve(import.meta.dirname, 'main.ts'),
      formats: ['es'],
      fileName: () => 'console.js',
      cssFileName: 'console',
    },
  },
});
