/** A tiny hand-made release (3-step chain) for scorer and runtime unit tests. */
import type { PlanBenchRelease, ToolRecord } from "../../envs/planbench/releaseFormat.js";

function tool(name: string, input: string, output: string, param: string, extra: Partial<ToolRecord> = {}): ToolRecord {
  return {
    type: "function",
    name,
    description: `Given a ${input.replace("_", " ")}, returns the ${output.replace("_", " ")}.`,
    parameters: { type: "object", properties: { [param]: { type: "string", description: `The ${input}.` } }, required: [param] },
    strict: true,
    input_datatypes: [input],
    output_datatype: output,
    surface_argument_to_datatype: { [param]: input },
    tool_type: "baseline",
    ...extra,
  };
}

export function miniRelease(): PlanBenchRelease {
  const dts = ["ticket_id", "order_id", "payment_id", "refund_status"].map((name) => ({
    name,
    category: "Mini",
    value_type: "string",
    description: `The ${name.replace("_", " ")} of a case.`,
    aliases: [`${name.split("_")[0]} ref`],
  }));
  const t1 = tool("get_order_from_ticket", "ticket_id", "order_id", "ticket_ref");
  const t2 = tool("get_payment_from_order", "order_id", "payment_id", "order_ref");
  const t3 = tool("get_refund_status_from_payment", "payment_id", "refund_status", "payment_ref");
  const n1 = tool("get_order_from_ticket_cache", "ticket_id", "order_id", "ticket_ref", {
    tool_type: "noisy_misleading",
    noise_type: "stale",
    return_value: "ord_bad",
    baseline_tool_name: "get_order_from_ticket",
    description: "Given a ticket, returns the order from a lagging cache.",
  });
  const baselineTools = [t1, t2, t3];
  const toolByName = new Map([...baselineTools, n1].map((t) => [t.name, t]));
  const task = {
    task_id: "mini_task_1",
    input_datatypes: ["ticket_id"],
    num_inputs: 1,
    target_datatype: "refund_status",
    one_available_path: [t1.name, t2.name, t3.name],
    steps: 3,
  };
  const query = {
    query_id: "mini_query_1",
    task_id: "mini_task_1",
    query_text: "Ticket `tk_1` is open. What is the refund status?",
    correct_answer: "approved",
    input_datatypes: ["ticket_id"],
    target_datatype: "refund_status",
  };
  return {
    dir: "(memory)",
    datatypes: dts,
    baselineTools,
    noisyTools: [n1],
    blockerTools: [],
    toolByName,
    cases: [
      { id: "c1", values: { ticket_id: "tk_1", order_id: "ord_1", payment_id: "pay_1", refund_status: "approved" } },
      { id: "c2", values: { ticket_id: "tk_2", order_id: "ord_2", payment_id: "pay_2", refund_status: "pending" } },
    ],
    tasks: [task],
    taskById: new Map([[task.task_id, task]]),
    queries: [query],
    catalog: new Map([[task.task_id, [{ tool_set: [t1.name, t2.name, t3.name], steps: 3 }]]]),
    domain: "retail",
  };
}
