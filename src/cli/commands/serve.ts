export const SERVE_HELP = `recovery-gym serve [--endpoint tcp://127.0.0.1:5555] [--workers N] [--config FILE] [--allow-remote] ...
  Starts the ZeroMQ bridge (see bridge/PROTOCOL.md). 'recovery-gym serve --help' lists every flag.`;

/** The bridge lives in bridge/; it is loaded only when serving so the CLI starts fast for other commands. */
export async function serveCommand(argv: readonly string[]): Promise<number> {
  let mod: { serveCommand(argv: string[]): Promise<number> };
  try {
    // A computed specifier keeps the core compiling on its own while the bridge is an optional part of the tree.
    const specifier = new URL(`../../../bridge/cli${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url).href;
    mod = (await import(specifier)) as typeof mod;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("bridge/cli")) {
      process.stderr.write("serve: the ZeroMQ bridge is not part of this build\n");
      return 2;
    }
    throw e;
  }
  return mod.serveCommand([...argv]);
}
