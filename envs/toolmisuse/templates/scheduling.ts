/**
 * The scheduling domain's templates: cron jobs (validate, create, list, validate then create) in one or two gold
 * calls; create a pair, fallback cron, rollout in three to five.
 */
import type { Draft, GenRng, Template } from "../templates.js";
import type { JsonObj } from "../world/types.js";
import { call, cronExpr, jobSpec, jobsState } from "../vocab.js";

/** One or two gold calls. */
export const SCHEDULING_SHORT: Template[] = [
  {
    name: "sched_validate",
    calls: 1,
    build: ({ rng }): Draft => {
      const valid = rng.random() < 0.6;
      const cron = cronExpr(rng, valid);
      const instruction = rng.pick([
        `Validate cron expression '${cron}'.`,
        `Check whether '${cron}' is a valid cron schedule.`,
        `Run cron validation on '${cron}'.`,
      ]);
      return {
        template: "sched_validate",
        blind: false,
        instruction,
        initialState: { jobs: jobsState(rng) },
        criteria: [
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "cron", value: cron },
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "valid", value: valid },
        ],
        steps: [{ call: call("validate_cron", { cron }) }],
      };
    },
  },
  {
    name: "sched_create",
    calls: 1,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const instruction = rng.pick([
        `Create scheduler job ${j.name} with command '${j.command}' and cron=${j.cron};`,
        `Register job named ${j.name} to run '${j.command}' on schedule '${j.cron}'.`,
        `Add a cron job ${j.name}: command '${j.command}', cron=${j.cron};`,
      ]);
      return {
        template: "sched_create",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [{ op: "in", path: "jobs", value: { name: j.name, cron: j.cron, command: j.command } }],
        steps: [{ call: call("create_job", { name: j.name, cron: j.cron, command: j.command }) }],
      };
    },
  },
  {
    name: "sched_list",
    calls: 1,
    build: ({ rng }): Draft => ({
      template: "sched_list",
      blind: true,
      instruction: rng.pick([
        `List all scheduled jobs.`,
        `Show the current job schedule.`,
        `Which jobs are scheduled right now? List them.`,
      ]),
      initialState: { jobs: jobsState(rng) },
      criteria: [{ op: "successful_tool_call", tool_name: "list_jobs", min_count: 1 }],
      steps: [{ call: call("list_jobs", {}) }],
    }),
  },
  {
    name: "sched_validate_create",
    calls: 2,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const instruction = rng.pick([
        `Validate cron '${j.cron}' and then register job ${j.name} running '${j.command}'.`,
        `Check whether '${j.cron}' is valid, then create scheduler job ${j.name} with command '${j.command}'.`,
      ]);
      return {
        template: "sched_validate_create",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [{ op: "in", path: "jobs", value: { name: j.name, cron: j.cron, command: j.command } }],
        steps: [
          { call: call("validate_cron", { cron: j.cron }), optional: true },
          { call: call("create_job", { name: j.name, cron: j.cron, command: j.command }) },
        ],
      };
    },
  },
];

const jobIn = (j: { name: string; cron: string; command: string }): JsonObj => ({
  op: "in",
  path: "jobs",
  value: { name: j.name, cron: j.cron, command: j.command },
});
const createStep = (j: { name: string; cron: string; command: string }, achieves: number[]) => ({
  call: call("create_job", { name: j.name, cron: j.cron, command: j.command }),
  achieves,
});

function twoJobs(rng: GenRng): [{ name: string; command: string; cron: string }, { name: string; command: string; cron: string }] {
  const a = jobSpec(rng);
  let b = jobSpec(rng);
  while (b.name === a.name) b = jobSpec(rng);
  return [a, b];
}

/** Three to five gold calls, with data flow where a real workflow has it. */
export const SCHEDULING_MULTISTEP: Template[] = [
  {
    name: "sched_create_pair",
    calls: 3,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const [a, b] = twoJobs(rng);
      const instruction = rng.pick([
        `Validate schedule '${a.cron}', then create job ${a.name} running '${a.command}' on ` +
          `schedule '${a.cron}', then create job ${b.name} running '${b.command}' on schedule ` +
          `'${b.cron}'.`,
        `Check whether '${a.cron}' is valid; register job ${a.name} to run '${a.command}' on ` +
          `schedule '${a.cron}'; register job ${b.name} to run '${b.command}' on schedule ` +
          `'${b.cron}'.`,
      ]);
      return {
        template: "sched_create_pair",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [jobIn(a), jobIn(b)],
        steps: [{ call: call("validate_cron", { cron: a.cron }), optional: true }, createStep(a, [0]), createStep(b, [1])],
      };
    },
  },
  {
    name: "sched_fallback_cron",
    calls: 4,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const j = jobSpec(rng);
      const bad = cronExpr(rng, false);
      const instruction = rng.pick([
        `Validate '${bad}'; it is not a valid cron, so validate '${j.cron}' instead, create job ` +
          `${j.name} running '${j.command}' on schedule '${j.cron}', then list the jobs.`,
        `The proposed schedule '${bad}' looks wrong: validate '${bad}', then validate the fallback ` +
          `'${j.cron}', then register job ${j.name} to run '${j.command}' on schedule '${j.cron}', ` +
          `and finally list all jobs.`,
      ]);
      return {
        template: "sched_fallback_cron",
        blind: false,
        instruction,
        initialState: { jobs },
        criteria: [
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "cron", value: j.cron },
          { op: "tool_output_path_equals", tool_name: "validate_cron", output_path: "valid", value: true },
          jobIn(j),
        ],
        steps: [
          { call: call("validate_cron", { cron: bad }), optional: true },
          { call: call("validate_cron", { cron: j.cron }), achieves: [0, 1] },
          createStep(j, [2]),
          { call: call("list_jobs", {}), optional: true },
        ],
      };
    },
  },
  {
    name: "sched_rollout",
    calls: 5,
    build: ({ rng }): Draft => {
      const jobs = jobsState(rng);
      const [a, b] = twoJobs(rng);
      const instruction = rng.pick([
        `Roll out two jobs: list the jobs, create job ${a.name} running '${a.command}' on schedule ` +
          `'${a.cron}', validate '${b.cron}', create job ${b.name} running '${b.command}' on ` +
          `schedule '${b.cron}', then list the jobs again to confirm both.`,
        `Show the current job schedule; register job ${a.name} to run '${a.command}' on schedule ` +
          `'${a.cron}'; check whether '${b.cron}' is valid; register job ${b.name} to run ` +
          `'${b.command}' on schedule '${b.cron}'; finally list all jobs.`,
      ]);
      return {
        template: "sched_rollout",
        blind: false,
        instruction,
        initialState: { jobs },
        // Index n+1 exists in a listing only once both new jobs are registered.
        criteria: [jobIn(a), jobIn(b), { op: "tool_output_path_exists", tool_name: "list_jobs", output_path: `jobs.${jobs.length + 1}` }],
        steps: [
          { call: call("list_jobs", {}), optional: true },
          createStep(a, [0]),
          { call: call("validate_cron", { cron: b.cron }), optional: true },
          createStep(b, [1]),
          { call: call("list_jobs", {}), achieves: [2] },
        ],
      };
    },
  },
];
