/** The scheduling domain's templates: cron jobs (validate, create, list, validate then create), in one or two gold calls. */
import type { Draft, Template } from "../templates.js";
import { call, cronExpr, jobSpec, jobsState } from "../vocab.js";

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
