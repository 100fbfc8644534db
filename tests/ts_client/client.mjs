// A client of `acp` built on the official TypeScript ACP SDK's unstable entry point.
//
// Usage: node client.mjs CWD AGENT_COMMAND [ARGS...]
//
// Starts the agent, serves an MCP server ("ts-tools", one tool `echo`) over the ACP
// connection, opens a session in CWD that uses it, sends one prompt (the agent's scripted
// model calls `mcp__ts-tools__echo`; the permission asked is allowed once), then calls the
// unstable session, auth and provider methods. Prints one JSON object on stdout with what
// each call answered, the session updates and what the MCP server was asked.
//
// Every message the agent sends is checked here against the SDK's generated zod schemas, the
// answers to this client's requests included (the SDK parses the requests and notifications
// it dispatches, not the answers), and a value the schemas' lenient parse would repair (an
// invalid optional field set to its default, an invalid list item dropped) fails as well.
// A message that fails, an error this client answers to an agent request, or an error the
// SDK reports on the console, is written to stderr and the exit status is 1.

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

import {
  MCP_PROTOCOL_VERSION,
  McpOverAcpProvider,
  PROTOCOL_VERSION,
  client,
  methods,
  ndJsonStream,
} from "@agentclientprotocol/sdk/unstable";

// The SDK's generated zod schemas for the unstable v1 protocol, the ones its handlers parse
// with (the package does not export this module by name, so it is found beside the entry).
const zod = await import(
  new URL("./schema/zod.gen.js", import.meta.resolve("@agentclientprotocol/sdk/unstable")).href
);

const [cwd, ...agentCommand] = process.argv.slice(2);
if (!cwd || agentCommand.length === 0) {
  process.stderr.write("usage: node client.mjs CWD AGENT_COMMAND [ARGS...]\n");
  process.exit(2);
}

const problems = [];

// Errors the SDK reports on the console (a notification it could not parse, a response to
// no request) are problems too.
const consoleError = console.error;
console.error = (...args) => {
  problems.push({ sdkConsoleError: args.map((a) => describe(a)) });
  consoleError(...args);
};

function describe(value) {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

// The schema of each answer, by the method of the request it answers.
const RESPONSE_SCHEMAS = {
  [methods.agent.initialize]: zod.zInitializeResponse,
  [methods.agent.session.new]: zod.zNewSessionResponse,
  [methods.agent.session.prompt]: zod.zPromptResponse,
  [methods.agent.session.list]: zod.zListSessionsResponse,
  [methods.agent.session.setTitle]: zod.zSetSessionTitleResponse,
  [methods.agent.session.archive]: zod.zArchiveSessionResponse,
  [methods.agent.session.unarchive]: zod.zUnarchiveSessionResponse,
  [methods.agent.session.status]: zod.zSessionStatusResponse,
  [methods.agent.auth.status]: zod.zAuthStatusResponse,
  [methods.agent.providers.list]: zod.zListProvidersResponse,
  [methods.agent.providers.set]: zod.zSetProviderResponse,
  [methods.agent.providers.disable]: zod.zDisableProviderResponse,
};

// The schema of the params of each request and notification the agent may send, and of
// this client's answers to its requests.
const REQUEST_SCHEMAS = {
  [methods.client.session.requestPermission]: zod.zRequestPermissionRequest,
  [methods.client.mcp.message]: zod.zMessageMcpRequest,
};
const NOTIFICATION_SCHEMAS = {
  [methods.client.session.update]: zod.zSessionNotification,
  [methods.client.auth.statusUpdate]: zod.zAuthStatusUpdateNotification,
  [methods.client.mcp.message]: zod.zMessageMcpNotification,
  [methods.protocol.cancelRequest]: zod.zCancelRequestNotification,
};
const ANSWER_SCHEMAS = {
  [methods.client.session.requestPermission]: zod.zRequestPermissionResponse,
  [methods.client.mcp.message]: zod.zMessageMcpResponse,
};

// Where the SDK's lenient parse changed a value instead of failing (an invalid optional
// field set to its default, an invalid list item dropped): the paths, empty when the parsed
// value is the sent one less the keys the schema does not name, plus the schema's defaults
// for fields not sent.
function repairs(raw, parsed, path) {
  if (Array.isArray(parsed)) {
    if (!Array.isArray(raw)) return raw === null && parsed.length === 0 ? [] : [path];
    if (raw.length !== parsed.length) return [path];
    return parsed.flatMap((item, i) => repairs(raw[i], item, `${path}[${i}]`));
  }
  if (parsed !== null && typeof parsed === "object") {
    if (raw === null && Object.keys(parsed).length === 0) return [];
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return [path];
    return Object.keys(parsed).flatMap((key) => {
      if (!Object.hasOwn(raw, key)) return [];
      return repairs(raw[key], parsed[key], `${path}.${key}`);
    });
  }
  return Object.is(raw, parsed) ? [] : [path];
}

function check(schema, value, what) {
  if (schema === undefined) {
    problems.push({ noSchemaFor: what, value });
    return;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    problems.push({ invalid: what, value, error: parsed.error.message });
    return;
  }
  const repaired = repairs(value, parsed.data, "$");
  if (repaired.length > 0) {
    problems.push({ invalid: what, value, repairedByTheSchema: repaired });
  }
}

// Watches both directions of the connection, as the SDK's message objects.
function watched(stream) {
  const sent = new Map(); // id of each request this client sent -> its method
  const received = new Map(); // id of each request the agent sent -> its method
  const readable = stream.readable.pipeThrough(
    new TransformStream({
      transform(message, controller) {
        if (typeof message.method === "string") {
          const isRequest = "id" in message;
          if (isRequest) received.set(message.id, message.method);
          const schema = (isRequest ? REQUEST_SCHEMAS : NOTIFICATION_SCHEMAS)[message.method];
          if (schema) check(schema, message.params, `${message.method} from the agent`);
          else if (!message.method.startsWith("_")) {
            problems.push({ unexpectedMethod: message.method, params: message.params });
          }
        } else if ("id" in message) {
          const method = sent.get(message.id);
          if ("result" in message) {
            check(RESPONSE_SCHEMAS[method], message.result, `the answer to ${method}`);
          }
        }
        controller.enqueue(message);
      },
    }),
  );
  const writer = stream.writable.getWriter();
  const writable = new WritableStream({
    async write(message) {
      if (typeof message.method === "string" && "id" in message) {
        sent.set(message.id, message.method);
      } else if (received.has(message.id)) {
        const method = received.get(message.id);
        if ("error" in message) {
          problems.push({ clientAnsweredWithError: method, error: message.error });
        } else {
          check(ANSWER_SCHEMAS[method], message.result, `this client's answer to ${method}`);
        }
      }
      await writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}

// The MCP server this client provides over ACP.
const mcpCalls = [];
const ECHO_TOOL = {
  name: "echo",
  description: "Says the message back.",
  inputSchema: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
};

async function mcpHandler(op) {
  mcpCalls.push({
    method: op.method,
    params: op.params ?? null,
    meta: op.params?._meta ?? null,
    protocolVersion: op.protocolVersion,
    clientInfo: op.clientInfo ?? null,
  });
  switch (op.method) {
    case "server/discover":
      return {
        result: {
          supportedVersions: [MCP_PROTOCOL_VERSION],
          capabilities: { tools: {} },
          serverInfo: { name: "ts-tools", version: "1" },
        },
      };
    case "tools/list":
      return { result: { tools: [ECHO_TOOL] } };
    case "tools/call": {
      const message = op.params?.arguments?.message;
      return { result: { content: [{ type: "text", text: "echo: " + message }] } };
    }
    default:
      return { error: { code: -32601, message: `Method not found: ${op.method}` } };
  }
}

const updates = [];
const permissions = [];
const authUpdates = [];
const mcp = new McpOverAcpProvider();

const app = client({ name: "reasonix-acp-ts-sdk-test" })
  .onRequest(methods.client.mcp.message, mcp.handleRequest)
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    const option = params.options.find((o) => o.kind === "allow_once");
    if (!option) return { outcome: { outcome: "cancelled" } };
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params);
  })
  .onNotification(methods.client.auth.statusUpdate, ({ params }) => {
    authUpdates.push(params);
  });

const agentProcess = spawn(agentCommand[0], agentCommand.slice(1), {
  stdio: ["pipe", "pipe", "pipe"],
});
let agentStderr = "";
agentProcess.stderr.setEncoding("utf8");
agentProcess.stderr.on("data", (chunk) => {
  agentStderr += chunk;
});
const agentExit = new Promise((resolve) => {
  agentProcess.on("exit", (code, signal) => resolve({ code, signal }));
});

const stream = watched(
  ndJsonStream(Writable.toWeb(agentProcess.stdin), Readable.toWeb(agentProcess.stdout)),
);

async function run(ctx) {
  const out = {};
  out.initialize = await ctx.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "reasonix-acp-ts-sdk-test", version: "1" },
  });
  if (out.initialize.agentCapabilities?.mcpCapabilities?.acp !== true) {
    throw new Error("initialize: agentCapabilities.mcpCapabilities.acp is not true");
  }

  const tools = mcp.registerServer(ctx, { name: "ts-tools", handler: mcpHandler });
  out.declaration = tools.declaration;
  out.sessionNew = await ctx.request(methods.agent.session.new, {
    cwd,
    mcpServers: [tools.declaration],
  });
  const sessionId = out.sessionNew.sessionId;

  out.prompt = await ctx.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "Echo hi with the ts-tools server." }],
  });

  const session = { sessionId };
  out.statusOpen = await ctx.request(methods.agent.session.status, session);
  out.setTitle = await ctx.request(methods.agent.session.setTitle, {
    sessionId,
    title: "  Echo   from the TypeScript SDK  ",
  });
  out.listAfterTitle = await ctx.request(methods.agent.session.list, { cwd });
  out.archive = await ctx.request(methods.agent.session.archive, session);
  out.listAfterArchive = await ctx.request(methods.agent.session.list, { cwd });
  out.listArchivedIncluded = await ctx.request(methods.agent.session.list, {
    cwd,
    archived: "include",
  });
  out.listArchivedOnly = await ctx.request(methods.agent.session.list, { archived: "only" });
  out.unarchive = await ctx.request(methods.agent.session.unarchive, session);
  out.listAfterUnarchive = await ctx.request(methods.agent.session.list, { cwd });
  out.statusSaved = await ctx.request(methods.agent.session.status, session);
  out.authStatus = await ctx.request(methods.agent.auth.status, {});

  out.providersBefore = await ctx.request(methods.agent.providers.list, {});
  out.providersSet = await ctx.request(methods.agent.providers.set, {
    providerId: "ts-local",
    apiType: "openai",
    baseUrl: "http://127.0.0.1:9/v1",
  });
  out.providersAfterSet = await ctx.request(methods.agent.providers.list, {});
  out.providersDisable = await ctx.request(methods.agent.providers.disable, {
    providerId: "ts-local",
  });
  out.providersAfterDisable = await ctx.request(methods.agent.providers.list, {});
  out.authStatusAfterProviders = await ctx.request(methods.agent.auth.status, {});
  await tools.dispose();
  return out;
}

let output;
let failure;
try {
  output = await app.connectWith(stream, run);
} catch (error) {
  failure = error;
}
agentProcess.stdin.end();
const exit = await Promise.race([
  agentExit,
  new Promise((resolve) => setTimeout(() => resolve(null), 10_000)),
]);
if (exit === null) {
  agentProcess.kill("SIGKILL");
  problems.push({ agentDidNotExit: "within 10 s of its stdin closing" });
}

if (output !== undefined) {
  const result = {
    ...output,
    updates,
    permissions,
    authUpdates,
    mcpCalls,
    agentExit: exit,
  };
  process.stdout.write(JSON.stringify(result) + "\n");
}
if (failure !== undefined || problems.length > 0) {
  if (failure !== undefined) {
    const data = failure.data === undefined ? "" : ` data=${describe(failure.data)}`;
    const code = failure.code === undefined ? "" : ` code=${failure.code}`;
    process.stderr.write(`client failed: ${describe(failure)}${code}${data}\n`);
  }
  for (const problem of problems) {
    process.stderr.write(`problem: ${JSON.stringify(problem)}\n`);
  }
  process.stderr.write(`agent stderr:\n${agentStderr}\n`);
  process.exit(1);
}
process.exit(0);
