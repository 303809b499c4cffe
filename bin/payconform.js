#!/usr/bin/env node
// Entry of the `payconform` command: the compiled JavaScript in dist/ (built by `npm run build`, which `prepare` runs on
// `npm ci` and `prepack` on `npm pack`). Nothing is transpiled at start-up.
try {
  await import('../dist/cli/bin.js');
} catch (error) {
  if (
    error?.code === 'ERR_MODULE_NOT_FOUND' &&
    String(error.message).includes('/dist/cli/bin.js')
  ) {
    process.stderr.write(
      'payconform: dist/ is missing; build it with `npm run build` (or `npm ci`, whose prepare step builds)\n',
    );
    process.exitCode = 2;
  } else {
    throw error;
  }
}
