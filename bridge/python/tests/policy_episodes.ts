/**
 * Reference episodes for the chat-mode Python tests: reads a JSON list of {env_id, policy, seeds, options} on stdin
 * and prints, per item and seed, the policy's actions on the structured env (in-process) and how the episode
 * ended (metrics, success, termination reason), for a stand-in model to replay as tool calls over the bridge.
 */
import {
  type Action,
  type Env,
  episodePolicyRng,
  episodeSteps,
  make,
  type Policy,
  policyEntry,
} from "../../../src/index.js";

interface Item {
  env_id: string;
  policy: string;
  seeds: number[];
  options?: Record<string, unknown>;
}

const chunks: Buffer[] = [];
process.stdin.on("data", (c: Buffer) => chunks.push(c));
process.stdin.on("end", () => {
  const items = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Item[];
  const out = items.map((it) =>
    it.seeds.map((seed) => {
      const env = make(it.env_id, it.options ?? {}) as Env<unknown, Action>;
      const policy = policyEntry(it.env_id, it.policy).create(env as Env<unknown, unknown>, episodePolicyRng(seed, it.policy));
      const actions: unknown[] = [];
      let info: Record<string, unknown> = {};
      for (const step of episodeSteps(env, policy as Policy<unknown, Action>, seed, { maxSteps: Number.POSITIVE_INFINITY })) {
        actions.push(step.action);
        info = step.info;
      }
      env.close();
      return { seed, actions, metrics: info.metrics, success: info.success, terminationReason: info.terminationReason };
    }),
  );
  process.stdout.write(JSON.stringify(out));
});
