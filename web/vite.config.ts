import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard's UI. `npm run build:web` writes dist/web (beside the compiled server), which `mailroom serve` serves at `/`;
// `npm run dev` serves it with hot reload and sends the API's requests on to Mailroom on :3000.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true, assetsDir: 'assets', sourcemap: false },
  server: {
    port: 5173,
    proxy: { '/dashboard/api': { target: process.env.MAILROOM_URL ?? 'http://127.0.0.1:3000', changeOrigin: false } },
  },
});
