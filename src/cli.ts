// The `mailroom` command (bin/mailroom.js, `npm start`): the commands themselves are in src/commands/.
import { runCli } from './commands/index.js';

await runCli(process.argv.slice(2));
