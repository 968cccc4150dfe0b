/** `npm run cli -- ...`: the command line of src/command-line.ts, on this process's arguments, environment and streams. */
import { runCommandLine } from './command-line.js';

process.exitCode = await runCommandLine(process.argv.slice(2), {
  env: process.env,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
