// The process entry of the `payconform` command: runs cli/main.ts on the process's arguments and sets the exit code.
// bin/payconform.js loads the compiled dist/cli/bin.js; tests spawn this file from source through tsx (test/fixtures/cli.ts).
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
