import { log } from '../shared/log.js';
import { serve } from '../nvim/server.js';

/**
 * Entry of the Node process. Neovim starts it with `jobstart({node, entry}, {rpc = true})` and sets
 * MADOHUB_NODE=1. When Neovim's own node host loads this file instead (`:UpdateRemotePlugins`), it
 * must register nothing and start nothing: it exports an empty plugin.
 */
function emptyPlugin(): void {}

if (process.env.MADOHUB_NODE === '1' && require.main === module) {
  log.info(`start pid ${process.pid} node ${process.version}`);
  serve(process.stdin, process.stdout);
  process.on('uncaughtException', (err) => log.error(`uncaught: ${err.stack ?? err.message}`));
}

module.exports = emptyPlugin;
