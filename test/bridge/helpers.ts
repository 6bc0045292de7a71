import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Backend } from "../../bridge/backend.js";
import type { Limits } from "../../bridge/protocol.js";
import { BridgeServer } from "../../bridge/server.js";

/** An ipc:// endpoint in a fresh temp dir, so parallel test files never collide on ports. */
export function tempIpc(name = "bridge"): string {
  const dir = mkdtempSync(path.join(tmpdir(), "rg-bridge-"));
  return `ipc://${path.join(dir, `${name}.sock`)}`;
}

export async function startServer(
  backend: Backend,
  limits: Partial<Limits> = {},
  extra: { now?: () => number; endpoint?: string } = {},
): Promise<BridgeServer> {
  const server = new BridgeServer({ endpoint: extra.endpoint ?? tempIpc(), backend, limits: { drainMs: 0, ...limits }, now: extra.now });
  await server.start();
  return server;
}
