import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
    // Two files at a time, one per core: integration tests spend most of their time waiting on the
    // Neovims, agents and hosts they start (each in folders of its own), and every wait is for a
    // condition, so a loaded machine makes them slower, not wrong (21 minutes one after another).
    fileParallelism: true,
    maxWorkers: 2,
    // A throwaway state folder for what a test starts without one of its own.
    setupFiles: ['test/helpers/isolate.ts'],
  },
});
