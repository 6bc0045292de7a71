import type { JsonObject } from "../../../src/family.js";
import { cancelOp, defineCategory, getOp, recordWrite } from "./category.js";
import { addDays, addMinutes, asNum, asStr, dateOf, enm, fail, int, nextId, obj, ok, pick, resolveOne, str, table, arr } from "./kit.js";
import { lookAlike, people, type Person } from "./pools.js";

const contactView = (r: JsonObject): JsonObject => pick(r, ["contact_id", "name", "email"]);

/* ------------------------------------------------------------------ email: Gmail / Outlook Mail */

const TOPICS = ["Q3 budget review", "Team offsite", "Invoice 4471", "Lease renewal", "Conference travel", "Project Falcon kickoff"];

interface EmailWorld {
  contacts: Person[];
  inbox: { from: Person; subject: string; unread: boolean; days: number }[];
}

export const email = defineCategory<EmailWorld>({
  id: "email",
  domain: "communication",
  title: "Email",
  providers: [
    { id: "gmail", label: "Gmail", idPrefix: "gm" },
    { id: "outlookmail", label: "Outlook Mail", idPrefix: "om" },
  ],
  ops: [
    {
      op: "search_contacts",
      description: "Find contacts by name or email.",
      parameters: obj({ query: str("Name or email fragment") }, ["query"]),
      semantics: { outputs: { "contacts[].email": "email_address" } },
      mutates: false,
      run: (a, rt) => {
        const q = asStr(a.query).toLowerCase();
        return ok({
          contacts: table(rt.st, "contacts")
            .filter((c) => asStr(c.name).toLowerCase().includes(q) || asStr(c.email).includes(q))
            .map(contactView),
        });
      },
    },
    {
      op: "list_messages",
      description: "List messages in a folder, newest first, optionally filtered by sender and unread state.",
      parameters: obj(
        {
          folder: enm("Folder", ["inbox", "sent"]),
          from: str("Sender name or email"),
          unread_only: { type: "boolean", description: "Only unread" },
          limit: int("Max messages", { minimum: 1, maximum: 50 }),
        },
        ["folder"],
      ),
      semantics: { parameters: { from: "email_address" } },
      mutates: false,
      verifies: ["send_email", "unsend_message"],
      run: (a, rt) => {
        const from = asStr(a.from).toLowerCase();
        const rows = table(rt.st, "messages")
          .filter((m) => m.folder === a.folder && m.status !== "recalled")
          .filter((m) => !from || asStr(m.from_name).toLowerCase() === from || asStr(m.from).toLowerCase() === from)
          .filter((m) => !a.unread_only || m.unread === true)
          .slice()
          .reverse()
          .slice(0, asNum(a.limit, 20));
        return ok({
          folder: a.folder as string,
          result_count: rows.length,
          messages: rows.map((m) => pick(m, ["message_id", "from", "from_name", "to", "subject", "unread", "sent_at"])),
        });
      },
    },
    getOp("read_message", "messages", "message_id", "message", ["send_email"]),
    {
      op: "send_email",
      description: "Send an email to a contact (name or address). Sent mail can be recalled with unsend_message for 30 minutes.",
      parameters: obj({ to: str("Recipient email address or contact name"), subject: str("Subject line"), body: str("Plain-text body") }, [
        "to",
        "subject",
        "body",
      ]),
      mutates: true,
      run: (a, rt) => {
        const to = asStr(a.to);
        let addr = to;
        let name = "";
        if (!to.includes("@")) {
          const c = resolveOne(table(rt.st, "contacts"), to, "contact_id", ["name"], "contact", contactView);
          if (!c.ok) return c.result;
          addr = asStr(c.row.email);
          name = asStr(c.row.name);
        }
        const rec: JsonObject = {
          message_id: nextId(rt.st, rt.prov.idPrefix, "msg"),
          folder: "sent",
          from: "me@example.com",
          from_name: "Me",
          to: addr,
          to_name: name,
          subject: asStr(a.subject),
          body: asStr(a.body),
          unread: false,
          status: "sent",
          sent_at: rt.now,
        };
        table(rt.st, "messages").push(rec);
        return ok({ message_id: rec.message_id, status: "sent", to: addr, subject: rec.subject, sent_at: rt.now });
      },
    },
    cancelOp("unsend_message", "messages", "message_id", "message", "sent"),
  ],
  world: (rng) => {
    const contacts = people(rng, 5);
    const inbox = contacts.flatMap((p, i) =>
      Array.from({ length: 1 + ((i * 3) % 4) }, (_, k) => ({
        from: p,
        subject: rng.pick(TOPICS),
        unread: rng.bool(0.6) || k === 0,
        days: rng.range(0, 6),
      })),
    );
    return { contacts, inbox };
  },
  tables: (w, prov, now) => ({
    contacts: w.contacts.map((p, i) => ({ contact_id: `${prov.idPrefix}_ct_${11 + i}`, name: p.name, email: p.email })),
    messages: w.inbox
      .slice()
      .sort((x, y) => y.days - x.days)
      .map((m, i) => ({
        message_id: `${prov.idPrefix}_msg_${701 + i}`,
        folder: "inbox",
        from: m.from.email,
        from_name: m.from.name,
        to: "me@example.com",
        subject: m.subject,
        body: `Hi, following up on ${m.subject}.`,
        unread: m.unread,
        status: "received",
        sent_at: addDays(now, -m.days),
      })),
  }),
  templates: [
    {
      name: "email.unread",
      kind: "read",
      build: (rng, w) => {
        const p = rng.pick(w.contacts);
        const n = w.inbox.filter((m) => m.from === p && m.unread).length;
        return {
          template: "email.unread",
          kind: "read",
          request: `How many unread emails do I have from ${p.name} in {provider}?`,
          main: { op: "list_messages", args: { folder: "inbox", from: p.name, unread_only: true } },
          stated: {},
          key: { arg: "from", precise: p.email },
          keyPath: ["result_count"],
          keyValue: n,
          wrongValue: n + 7,
          corruption: "result_count disagrees with the messages listed",
          answer: [{ kind: "number", id: "unread", value: n, tolerance: 0 }],
          wrongConcept: { kind: "number", id: "wrong_count", value: n + 7, tolerance: 0 },
        };
      },
    },
    {
      name: "email.send",
      kind: "write",
      build: (rng, w) => {
        const p = rng.pick(w.contacts);
        const subject = rng.pick(TOPICS);
        const decoy = lookAlike(rng, p);
        return {
          template: "email.send",
          kind: "write",
          request:
            `Email ${p.name} (${p.email}) from my {provider} account with subject "${subject}" saying ` +
            `I'll send the numbers by Friday.`,
          main: { op: "send_email", args: { to: p.name, subject, body: "I'll send the numbers by Friday." } },
          stated: { to: p.email, subject },
          keyPath: ["subject"],
          keyValue: subject,
          wrongValue: "(no subject)",
          corruption: "subject line dropped on send",
          answer: [
            { kind: "text", id: "recipient", synonyms: [p.name, p.email] },
            { kind: "text", id: "subject", synonyms: [subject] },
          ],
          wrongConcept: { kind: "text", id: "no_subject", synonyms: ["no subject"] },
          write: recordWrite(
            "messages",
            "message_id",
            "subject",
            { folder: "sent", to: p.email, subject, status: "sent" },
            { verify: "read_message", cancel: "unsend_message" },
          ),
          ambiguity: {
            arg: "to",
            table: "contacts",
            idField: "contact_id",
            decoy: { name: decoy.name, email: decoy.email },
            truth: { email: p.email },
            shownPath: ["to"],
            decoyShown: decoy.email,
          },
        };
      },
    },
  ],
});

/* ------------------------------------------------------------------ calendar: Google Calendar / Outlook Calendar */

const MEETINGS = ["Design review", "1:1 with Sam", "Dentist", "Quarterly planning", "Coffee with Lena", "Budget sync", "Yoga class"];

interface CalendarWorld {
  events: { title: string; day: number; hour: number; minutes: number }[];
  people: Person[];
}

export const calendar = defineCategory<CalendarWorld>({
  id: "calendar",
  domain: "communication",
  title: "Calendar",
  providers: [
    { id: "gcal", label: "Google Calendar", idPrefix: "gc" },
    { id: "outlookcal", label: "Outlook Calendar", idPrefix: "oc" },
  ],
  ops: [
    {
      op: "list_events",
      description: "Events on a given date (UTC), ordered by start time.",
      parameters: obj({ date: str("YYYY-MM-DD", { format: "date" }) }, ["date"]),
      mutates: false,
      verifies: ["create_event", "delete_event"],
      run: (a, rt) => {
        const rows = table(rt.st, "events").filter((e) => asStr(e.start).startsWith(asStr(a.date)) && e.status === "confirmed");
        return ok({ date: a.date as string, events: rows.map((e) => ({ ...e })) });
      },
    },
    getOp("get_event", "events", "event_id", "event", ["create_event", "delete_event"]),
    {
      op: "create_event",
      description: "Create an event. start is an ISO date-time in UTC.",
      parameters: obj(
        {
          title: str("Event title"),
          start: str("Start, e.g. 2026-06-16T15:00:00Z", { format: "date-time" }),
          duration_minutes: int("Length in minutes", { minimum: 5, maximum: 600 }),
          attendees: arr("Attendee emails", { type: "string" }),
        },
        ["title", "start", "duration_minutes"],
      ),
      mutates: true,
      run: (a, rt) => {
        const start = asStr(a.start);
        if (Date.parse(start) < Date.parse(rt.now)) return fail(422, "START_IN_PAST", `start ${start} is before now (${rt.now}).`);
        const rec: JsonObject = {
          event_id: nextId(rt.st, rt.prov.idPrefix, "evt"),
          title: asStr(a.title),
          start: start.replace(/\.\d+Z$/, "Z"),
          end: addMinutes(start, asNum(a.duration_minutes)),
          attendees: Array.isArray(a.attendees) ? a.attendees : [],
          status: "confirmed",
          created_at: rt.now,
        };
        table(rt.st, "events").push(rec);
        return ok({ event_id: rec.event_id, status: "confirmed", title: rec.title, start: rec.start, end: rec.end });
      },
    },
    cancelOp("delete_event", "events", "event_id", "event", "confirmed"),
    {
      op: "find_free_slots",
      description: "Free 30-minute-aligned slots between 09:00 and 17:00 UTC on a date.",
      parameters: obj(
        { date: str("YYYY-MM-DD", { format: "date" }), duration_minutes: int("Needed length", { minimum: 15, maximum: 240 }) },
        ["date", "duration_minutes"],
      ),
      mutates: false,
      run: (a, rt) => {
        const busy = table(rt.st, "events").filter((e) => asStr(e.start).startsWith(asStr(a.date)) && e.status === "confirmed");
        const slots: string[] = [];
        for (let m = 9 * 60; m + asNum(a.duration_minutes) <= 17 * 60; m += 30) {
          const s = addMinutes(`${asStr(a.date)}T00:00:00Z`, m);
          const e = addMinutes(s, asNum(a.duration_minutes));
          if (!busy.some((b) => asStr(b.start) < e && asStr(b.end) > s)) slots.push(s);
        }
        return ok({ date: a.date as string, free_slots: slots });
      },
    },
  ],
  world: (rng) => ({
    events: rng
      .sample(MEETINGS, 5)
      .map((title) => ({ title, day: rng.range(1, 4), hour: rng.range(9, 16), minutes: rng.pick([30, 45, 60]) })),
    people: people(rng, 3),
  }),
  tables: (w, prov, now) => ({
    events: w.events.map((e, i) => {
      const start = `${addDays(dateOf(now), e.day)}T${String(e.hour).padStart(2, "0")}:00:00Z`;
      return {
        event_id: `${prov.idPrefix}_evt_${401 + i}`,
        title: e.title,
        start,
        end: addMinutes(start, e.minutes),
        attendees: [],
        status: "confirmed",
        created_at: addDays(now, -10),
      };
    }),
  }),
  templates: [
    {
      name: "calendar.when",
      kind: "read",
      build: (rng, w, now) => {
        const e = rng.pick(w.events);
        const date = addDays(dateOf(now), e.day);
        const sameDay = w.events.filter((x) => x.day === e.day);
        const k = sameDay.indexOf(e);
        const hh = String(e.hour).padStart(2, "0");
        const h12 = e.hour > 12 ? e.hour - 12 : e.hour;
        return {
          template: "calendar.when",
          kind: "read",
          request: `What time (UTC) does my "${e.title}" start on ${date}? Check {provider}.`,
          main: { op: "list_events", args: { date } },
          stated: {},
          keyPath: ["events", k, "start"],
          keyValue: `${date}T${hh}:00:00Z`,
          wrongValue: `${addDays(date, 1)}T${hh}:00:00Z`,
          corruption: "event starts after it ends",
          answer: [
            {
              kind: "text",
              id: "start_time",
              synonyms: [`${e.hour}:00`, `${hh}:00`, `${h12} ${e.hour >= 12 ? "pm" : "am"}`, `${h12}${e.hour >= 12 ? "pm" : "am"}`],
            },
          ],
          wrongConcept: { kind: "date", id: "wrong_day", iso: addDays(date, 1) },
        };
      },
    },
    {
      name: "calendar.create",
      kind: "write",
      build: (rng, _w, now) => {
        const title = rng.pick(["Dinner with Priya", "Car service", "Sprint demo", "Parent-teacher call", "Haircut"]);
        const day = rng.range(2, 6);
        const hour = rng.pick([10, 13, 15, 16]);
        const date = addDays(dateOf(now), day);
        const start = `${date}T${hour}:00:00Z`;
        const wrongDate = addDays(date, -365);
        return {
          template: "calendar.create",
          kind: "write",
          request: `Put "${title}" on my {provider} on ${date} at ${hour}:00 UTC for 60 minutes.`,
          main: { op: "create_event", args: { title, start, duration_minutes: 60 } },
          stated: { title, start },
          keyPath: ["start"],
          keyValue: start,
          wrongValue: `${wrongDate}T${hour}:00:00Z`,
          corruption: "stored start a year off",
          answer: [
            { kind: "text", id: "title", synonyms: [title] },
            { kind: "date", id: "date", iso: date },
          ],
          wrongConcept: { kind: "date", id: "wrong_date", iso: wrongDate },
          write: recordWrite(
            "events",
            "event_id",
            "start",
            { title, start, status: "confirmed" },
            { verify: "get_event", cancel: "delete_event" },
          ),
        };
      },
    },
  ],
});
