// Drives `acp serve` with the official TypeScript ACP SDK's own client transports
// (experimental/http-client, experimental/ws-client): tests/remote/test_sdk_remote.py runs it.
//
//   node remote.mjs share  http|ws URL CWD   two connections share one session
//   node remote.mjs hang   http|ws URL CWD   opens a session, prompts, prints the session id
//                                            once the turn is under way, and waits (killed)
//   node remote.mjs load   http|ws URL CWD SESSION   loads a session and prompts in it
//
// The token comes from REASONIX_ACP_TOKEN and is sent as `Authorization: Bearer`. What each
// connection received is printed as one JSON object on stdout; any failure exits 1.
import * as acp from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import WebSocket from "ws";

const [flow, mode, url, cwd, sessionArg] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${process.env.REASONIX_ACP_TOKEN}` };

function open(name) {
  const stream = mode === "ws"
    ? createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket, headers })
    : createHttpStream(url, { headers });
  const seen = { name, updates: [], permissions: 0 };
  const app = acp.client({ name })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      seen.permissions += 1;
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      seen.updates.push(params);
    });
  const connection = app.connect(stream);
  return { agent: connection.agent, connection, seen };
}

async function initialize(agent) {
  return agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
}

function prompt(agent, sessionId, text) {
  return agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
}

// Text of the agent's message chunks each connection saw, by session.
function said(seen) {
  return seen.updates
    .filter((u) => u.update.sessionUpdate === "agent_message_chunk")
    .map((u) => u.update.content.text)
    .join("");
}

function replayed(seen) {
  return seen.updates
    .filter((u) => u.update.sessionUpdate === "user_message_chunk")
    .map((u) => u.update.content.text)
    .join("|");
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

async function share() {
  const a = open("first");
  const init = await initialize(a.agent);
  const { sessionId } = await a.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const first = await prompt(a.agent, sessionId, "first");
  await settle();
  const aBefore = said(a.seen);

  const b = open("second");
  await initialize(b.agent);
  const load = await b.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  await settle();
  const bReplayed = replayed(b.seen);
  const aAfterLoad = a.seen.updates.length;
  const aUserChunksAfterLoad = a.seen.updates
    .slice(aAfterLoad)
    .filter((u) => u.update.sessionUpdate === "user_message_chunk").length;
  const second = await prompt(b.agent, sessionId, "second");
  await settle();
  const third = await prompt(a.agent, sessionId, "third");
  await settle();
  b.connection.close();
  await b.connection.closed.catch(() => {});
  await settle();
  const fourth = await prompt(a.agent, sessionId, "fourth");
  await settle();
  a.connection.close();
  return {
    initialize: init,
    sessionId,
    stops: [first, second, third, fourth].map((r) => r.stopReason),
    load,
    aBefore,
    aSaid: said(a.seen),
    bSaid: said(b.seen),
    bReplayed,
    aUserChunksAfterLoad,
  };
}

async function hang() {
  const a = open("vanishing");
  await initialize(a.agent);
  const { sessionId } = await a.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  const turn = prompt(a.agent, sessionId, "a long one").catch(() => {});
  while (!a.seen.updates.some((u) => u.update.sessionUpdate === "agent_message_chunk")) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  process.stdout.write(JSON.stringify({ sessionId }) + "\n");
  await turn;
  await new Promise(() => {}); // until killed
}

async function load() {
  const a = open("returning");
  await initialize(a.agent);
  const result = await a.agent.request(acp.methods.agent.session.load, {
    sessionId: sessionArg,
    cwd,
    mcpServers: [],
  });
  await settle();
  const replay = replayed(a.seen);
  const again = await prompt(a.agent, sessionArg, "again");
  a.connection.close();
  return { load: result, replayed: replay, stop: again.stopReason, said: said(a.seen) };
}

const flows = { share, hang, load };
try {
  const out = await flows[flow]();
  process.stdout.write(JSON.stringify(out) + "\n");
  process.exit(0);
} catch (error) {
  process.stderr.write(`remote.mjs ${flow} ${mode}: ${error?.stack ?? error}\n`);
  if (error?.data) process.stderr.write(`data: ${JSON.stringify(error.data)}\n`);
  process.exit(1);
}
