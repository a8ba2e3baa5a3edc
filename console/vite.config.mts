import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into dist/console by `npm run build`; the API serves it under /console (same origin).
// No React plugin: Vite compiles the TSX itself (tsconfig's "jsx": "react-jsx"); the plugin only
// adds fast refresh, which a build never uses.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  // The typed client's sources (packages/client), as the API's build compiles them.
  resolve: { alias: { '@loci/client': fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      // Mantine marks its modules "use client" (for React Server Components); a browser bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
