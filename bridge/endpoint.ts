/**
 * Endpoint policy: the bridge runs arbitrary env code on request, so by default it listens on loopback or local
 * IPC only. Reaching it from other machines is an explicit decision (`--allow-remote`) and, when libzmq has
 * CURVE, requires server keys so traffic is encrypted and only clients that know the server key can talk.
 */
import { capability } from "zeromq";

export interface CurveKeys {
  publicKey: string;
  secretKey: string;
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** True when the endpoint can only be reached from this machine. */
export function isLocalEndpoint(endpoint: string): boolean {
  if (endpoint.startsWith("ipc://") || endpoint.startsWith("inproc://")) return true;
  const m = /^tcp:\/\/(.+):([0-9]+|\*)$/.exec(endpoint);
  if (!m) return false;
  let host = m[1];
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return host === "localhost" || host === "::1" || LOOPBACK_V4.test(host);
}

export class EndpointPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EndpointPolicyError";
  }
}

/** Throws an explanatory error when the endpoint is not allowed under the given flags. */
export function checkEndpointPolicy(endpoint: string, allowRemote: boolean, curve: CurveKeys | null): void {
  if (!/^(tcp|ipc|inproc):\/\//.test(endpoint)) {
    throw new EndpointPolicyError(`endpoint '${endpoint}' must start with tcp://, ipc:// or inproc://`);
  }
  if (isLocalEndpoint(endpoint)) return;
  if (!allowRemote) {
    throw new EndpointPolicyError(
      `refusing to bind non-loopback endpoint '${endpoint}': the bridge executes env code for anyone who can reach it. ` +
        `Bind tcp://127.0.0.1:PORT or ipc://PATH, or pass --allow-remote` +
        (capability.curve
          ? " together with CURVE server keys (--curve-keys FILE; create one with `recovery-gym serve --gen-curve-keys FILE`)."
          : "."),
    );
  }
  if (capability.curve && !curve) {
    throw new EndpointPolicyError(
      `--allow-remote on '${endpoint}' requires CURVE server keys because this libzmq supports CURVE: ` +
        "create them with `recovery-gym serve --gen-curve-keys keys.json` and pass `--curve-keys keys.json` " +
        "(clients need the public key: Client(address, server_public_key=...)).",
    );
  }
}
