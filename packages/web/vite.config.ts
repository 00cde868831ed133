import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/** The softphone is served by Switchboard itself under /app/, so every URL it builds starts there. */
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Modern browsers only: the app relies on WebSocket, service workers and ES2022.
    target: 'es2022',
    sourcemap: true,
  },
  server: {
    // `npm run dev -w @switchboard/web` next to `npm start`: the API and socket come from the server.
    proxy: {
      '/app/api': 'http://127.0.0.1:8080',
      '/app/ws': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
