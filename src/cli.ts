// The `mailroom` command (bin/mailroom.js, `npm start`): the commands themselves are in src/cli/.
import { runCli } from './cli/run.js';

await runCli(process.argv.slice(2));
