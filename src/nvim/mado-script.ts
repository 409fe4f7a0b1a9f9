// The `mado` script beside this bundle (rplugin/node/madohub/index.js → bin/mado): what the Node
// process runs the daemon with, and names to the operations it runs here.
import path from 'node:path';

export const MADO = path.resolve(__dirname, '..', '..', '..', 'bin', 'mado');
