import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
    // Integration tests start real Neovims; two cores, so run files one after another.
    fileParallelism: false,
    // A throwaway state folder for what a test starts without one of its own.
    setupFiles: ['test/helpers/isolate.ts'],
  },
});
