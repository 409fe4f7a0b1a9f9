// A mock of the model APIs the agents speak, on 127.0.0.1, for capturing their real screens offline
// (no test uses it: what is captured becomes fixtures). One server answers:
//   Anthropic Messages      POST /v1/messages                      (Claude Code, Copilot CLI)
//   OpenAI Chat Completions POST /v1/chat/completions              (Qwen Code, Pi, OpenCode, old Codex)
//   OpenAI Responses        POST /v1/responses                     (Codex)
//   Gemini                  POST /v1beta/models/<m>:streamGenerateContent, :generateContent, :countTokens
// What it answers is read from the last words of the user's prompt:
//   delegate → a sub-agent (Task/Agent);
//   run → a shell tool call (`touch mock-ran.txt`; run long: after 20 s); write → a file write; ask → the agent's question
//   tool; plan → its plan-exit tool; slow → text after 4 s; fail → HTTP 500; fail badly → HTTP 400;
//   anything else → "You said: <prompt>". A tool's result gets "Done: ran it.".
// A request without tools is a side request (a title, a topic): Claude Code 1.x/2.0 ask for a topic
// as JSON, and get one. Claude Code sends the prompt after an interrupt with the interrupt marker
// before it: the marker is passed over.
// Usage: node mock-models.mjs [port] [log file]. Each request is logged, one line.
import fs from 'node:fs';
import http from 'node:http';

const port = Number(process.argv[2] ?? 8765);
const logFile = process.argv[3] ?? `/tmp/mock-models-${port}.log`;
const log = (s) => fs.appendFileSync(logFile, `${new Date().toISOString()} ${s}\n`);
let n = 0;

/**
 * Token counts that differ per request (request k: input 100+13k, output 7+3k, cache read 50k,
 * cache write 20+k), so that a sum of an agent's records is a real check of what it counted.
 */
const counts = (k) => ({ input: 100 + 13 * k, output: 7 + 3 * k, cacheRead: 50 * k, cacheWrite: 20 + k });

const MARKERS = /^\[Request interrupted by user[^\]]*\]$/;
const strip = (t) =>
  String(t ?? '')
    .replace(/<([a-z_-]+)>[\s\S]*?<\/\1>/g, '')
    .trim();

/** What to answer: a text, a tool call, a delay, an error. */
function plan({ said, tools, afterTool, side, sideText }) {
  const pick = (re, fallback) => tools.find((t) => re.test(t.name))?.name ?? fallback;
  if (side) {
    if (/isNewTopic/.test(sideText)) return { text: '{"isNewTopic": true, "title": "Mock topic"}' };
    return { text: 'Mock title' };
  }
  if (afterTool) return { text: 'Done: ran it.' };
  if (/\bfail\b/.test(said)) return /\bbadly\b/.test(said) ? { error: 400 } : { error: 500 };
  if (/\bslow\b/.test(said)) return { text: `Slow answer to: ${said.slice(0, 200)}`, delay: 4000 };
  const dir = process.env.MOCK_DIR ?? process.cwd();
  if (/\brun\b/.test(said)) {
    const name =
      pick(/^(Bash|bash|shell|shell_command|exec_command|run_shell_command|local_shell)$/, undefined) ??
      pick(/shell|bash|exec|command/i, 'shell');
    // run long → a command that takes 20 s (an interrupt while it runs).
    const command = /\blong\b/.test(said) ? 'sleep 20; touch mock-ran.txt' : 'touch mock-ran.txt';
    return { text: 'I will run a command.', call: { name, command } };
  }
  if (/\bwrite\b/.test(said)) {
    // A tool that writes a whole file first (OpenCode has `write` and `edit`).
    const name = ['Write', 'write', 'write_file', 'create', 'apply_patch', 'edit'].find((w) =>
      tools.some((t) => t.name === w),
    );
    // Codex before its apply_patch tool writes files through its shell's `apply_patch` command.
    const shell = pick(/^(shell|exec_command)$/, undefined);
    if (!name && shell)
      return {
        text: 'I will write a file.',
        call: { name: shell, patch: `*** Begin Patch\n*** Add File: new.txt\n+new file\n*** End Patch\n` },
      };
    return {
      text: 'I will write a file.',
      call: { name: name ?? 'write_file', path: `${dir}/new.txt`, content: 'new file\n' },
    };
  }
  if (/\bask\b/.test(said))
    return {
      text: 'I have a question.',
      call: { name: pick(/AskUserQuestion|ask_user|request_user_input|question/i, 'ask_user'), ask: true },
    };
  // delegate → a sub-agent (Claude Code's Task/Agent tool), whose own request says something else.
  if (/\bdelegate\b/.test(said) && tools.some((t) => /^(Task|Agent)$/.test(t.name)))
    return { text: 'I will ask a sub-agent.', call: { name: pick(/^(Task|Agent)$/, 'Task'), delegate: true } };
  if (/\bplan\b/.test(said))
    return {
      text: 'Here is the plan.',
      call: { name: pick(/ExitPlanMode|exit_plan/i, 'ExitPlanMode'), plan: '1. Look\n2. Fix' },
    };
  return { text: `You said: ${said.slice(0, 300)}` };
}

/** A tool call's arguments, shaped to what the tool's schema asks for (only its own fields, when it names them). */
function argsFor(call, schema) {
  const all = shapedArgs(call, schema ?? {});
  const names = Object.keys(schema?.properties ?? {});
  if (names.length === 0) return all;
  return Object.fromEntries(Object.entries(all).filter(([k]) => names.includes(k)));
}

function shapedArgs(call, schema) {
  const props = schema.properties ?? {};
  // Codex 0.1xx's exec_command takes one command line: the patch as apply_patch's heredoc.
  if (call.patch !== undefined && props.cmd) return { cmd: `apply_patch <<'PATCH'\n${call.patch}PATCH` };
  if (call.patch !== undefined) return { command: ['apply_patch', call.patch] };
  if (call.command !== undefined) {
    // Codex 0.1xx runs a command in its sandbox unless the model asks to leave it: the approval shows then.
    const escalate = props.sandbox_permissions
      ? { sandbox_permissions: 'require_escalated', justification: 'Create a file' }
      : {};
    if (props.cmd) return { cmd: call.command, ...escalate };
    if (props.command?.type === 'array') return { command: ['bash', '-lc', call.command] };
    return { command: call.command, description: 'Create a file' };
  }
  if (call.ask) {
    if (props.questions)
      return {
        questions: [
          {
            // Codex's request_user_input names each question.
            ...(props.questions.items?.properties?.id ? { id: 'colour' } : {}),
            // Gemini CLI's ask_user asks for the kind of question.
            ...(props.questions.items?.properties?.type ? { type: 'choice' } : {}),
            question: 'Which colour should the button be?',
            header: 'Colour',
            options: [
              { label: 'Red', description: 'warm' },
              { label: 'Blue', description: 'cool' },
            ],
            multiSelect: false,
          },
        ],
      };
    return { question: 'Which colour should the button be?', choices: ['Red', 'Blue'], options: ['Red', 'Blue'] };
  }
  if (call.plan !== undefined) return { plan: call.plan };
  if (call.delegate)
    return { description: 'Greet', prompt: 'say hi from the sub-agent', subagent_type: 'general-purpose' };
  if (call.name === 'apply_patch')
    return { input: `*** Begin Patch\n*** Add File: ${call.path}\n+new file\n*** End Patch\n` };
  return {
    file_path: call.path,
    filePath: call.path,
    filepath: call.path,
    path: call.path,
    absolute_path: call.path,
    content: call.content,
    file_text: call.content,
  };
}

function send(res, code, body, type = 'application/json') {
  res.writeHead(code, { 'content-type': type });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

function sse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  return (event, data) => res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

const later = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- Anthropic Messages
function anthropicText(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts = content
    .filter((c) => c.type === 'text')
    .map((c) => strip(c.text))
    .filter((t) => t && !MARKERS.test(t) && !/^(# Environment|Available agent types|Caveat:)/.test(t));
  return texts.at(-1) ?? '';
}
async function anthropic(j, res) {
  // Claude Code 2.1.2xx ends the list with a `system` message (tokens left): the turn is the last other one.
  const last = [...(j.messages ?? [])].reverse().find((m) => m.role !== 'system') ?? {};
  const tools = (j.tools ?? []).map((t) => ({ name: t.name, schema: t.input_schema }));
  // A tool's result answers it, unless the user wrote with it (a rejected tool and what to do instead).
  const afterTool =
    Array.isArray(last.content) && last.content.some((c) => c.type === 'tool_result') && !anthropicText(last.content);
  const system = Array.isArray(j.system) ? j.system.map((s) => s.text ?? '').join(' ') : String(j.system ?? '');
  const p = plan({
    said: anthropicText(last.content),
    tools,
    afterTool,
    side: tools.length === 0,
    sideText: `${system} ${anthropicText(last.content)}`,
  });
  log(
    `anthropic model=${j.model} tools=${tools.length} said=${JSON.stringify(anthropicText(last.content)).slice(0, 120)} -> ${p.error ?? p.call?.name ?? 'text'}`,
  );
  // A side request that prefills the answer with `{` (Claude Code 2.0's topic) gets the rest of the JSON.
  if (last.role === 'assistant' && anthropicText(last.content).startsWith('{'))
    p.text = '"isNewTopic": true, "title": "Mock topic"}';
  if (p.error)
    return send(res, p.error, {
      type: 'error',
      error: {
        type: p.error === 400 ? 'invalid_request_error' : 'api_error',
        message: p.error === 400 ? 'Mock refuses this request' : 'Mock overloaded',
      },
    });
  const id = `msg_${++n}`;
  const blocks = [{ type: 'text', text: p.text }];
  if (p.call)
    blocks.push({
      type: 'tool_use',
      id: `toolu_${n}`,
      name: p.call.name,
      input: argsFor(p.call, tools.find((t) => t.name === p.call.name)?.schema),
    });
  const stop = p.call ? 'tool_use' : 'end_turn';
  const c = counts(n);
  const usage = {
    input_tokens: c.input,
    output_tokens: c.output,
    cache_creation_input_tokens: c.cacheWrite,
    cache_read_input_tokens: c.cacheRead,
  };
  if (!j.stream) {
    await later(p.delay ?? 0);
    return send(res, 200, {
      id,
      type: 'message',
      role: 'assistant',
      model: j.model,
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
  }
  const ev = sse(res);
  ev('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: j.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  await later(p.delay ?? 0);
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      ev('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      });
      ev('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
  });
  ev('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: c.output },
  });
  ev('message_stop', { type: 'message_stop' });
  res.end();
}

// ---- OpenAI Chat Completions
const chatText = (c) =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (p.type === 'text' ? p.text : '')).join(' ') : '';
async function chat(j, res) {
  const last = (j.messages ?? []).at(-1) ?? {};
  const tools = (j.tools ?? []).map((t) => ({ name: t.function?.name ?? t.name, schema: t.function?.parameters }));
  const said = strip(chatText(last.content));
  const p = plan({ said, tools, afterTool: last.role === 'tool', side: tools.length === 0, sideText: said });
  log(
    `chat model=${j.model} tools=${tools.length} said=${JSON.stringify(said).slice(0, 120)} -> ${p.error ?? p.call?.name ?? 'text'}`,
  );
  if (p.error)
    return send(res, p.error, {
      error: {
        message: p.error === 400 ? 'Mock refuses this request' : 'Mock overloaded',
        type: p.error === 400 ? 'invalid_request_error' : 'server_error',
      },
    });
  const id = `chatcmpl-${++n}`;
  const call = p.call && {
    id: `call_${n}`,
    type: 'function',
    function: {
      name: p.call.name,
      arguments: JSON.stringify(argsFor(p.call, tools.find((t) => t.name === p.call.name)?.schema)),
    },
  };
  const c = counts(n);
  const usage = {
    prompt_tokens: c.input + c.cacheRead,
    completion_tokens: c.output,
    total_tokens: c.input + c.cacheRead + c.output,
    prompt_tokens_details: { cached_tokens: c.cacheRead },
  };
  const finish = call ? 'tool_calls' : 'stop';
  await later(p.delay ?? 0);
  if (!j.stream)
    return send(res, 200, {
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: j.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: p.text, ...(call ? { tool_calls: [call] } : {}) },
          finish_reason: finish,
        },
      ],
      usage,
    });
  const ev = sse(res);
  const chunk = (delta, finish_reason = null, extra = {}) =>
    ev('', {
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: j.model,
      choices: [{ index: 0, delta, finish_reason }],
      ...extra,
    });
  chunk({ role: 'assistant', content: '' });
  chunk({ content: p.text });
  if (call) chunk({ tool_calls: [{ index: 0, ...call }] });
  chunk({}, finish, { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

// ---- OpenAI Responses (Codex)
function responsesInput(input) {
  const items = Array.isArray(input)
    ? input
    : [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: String(input ?? '') }] }];
  const last = items.at(-1) ?? {};
  const afterTool = /_call_output$/.test(last.type ?? '');
  const users = items.filter((i) => i.type === 'message' && i.role === 'user');
  const texts = (users.at(-1)?.content ?? [])
    .map((c) => strip(c.text))
    .filter((t) => t && !/^<(environment_context|user_instructions)/.test(t));
  return { said: texts.at(-1) ?? '', afterTool };
}
async function responses(j, res) {
  const tools = (j.tools ?? []).map((t) => ({ name: t.name ?? t.type, schema: t.parameters, kind: t.type }));
  const { said, afterTool } = responsesInput(j.input);
  const p = plan({ said, tools, afterTool, side: tools.length === 0, sideText: said });
  log(
    `responses model=${j.model} tools=${tools
      .map((t) => t.name)
      .join(',')
      .slice(0, 120)} said=${JSON.stringify(said).slice(0, 120)} -> ${p.error ?? p.call?.name ?? 'text'}`,
  );
  if (p.error)
    return send(res, p.error, {
      error: {
        message: p.error === 400 ? 'Mock refuses this request' : 'Mock overloaded',
        type: p.error === 400 ? 'invalid_request_error' : 'server_error',
        code: null,
      },
    });
  const id = `resp_${++n}`;
  const ev = sse(res);
  ev('response.created', { type: 'response.created', response: { id } });
  await later(p.delay ?? 0);
  const message = {
    type: 'message',
    role: 'assistant',
    id: `msg_${n}`,
    content: [{ type: 'output_text', text: p.text, annotations: [] }],
  };
  ev('response.output_item.added', {
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...message, content: [] },
  });
  ev('response.output_text.delta', {
    type: 'response.output_text.delta',
    output_index: 0,
    content_index: 0,
    item_id: message.id,
    delta: p.text,
  });
  ev('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item: message });
  if (p.call) {
    const tool = tools.find((t) => t.name === p.call.name);
    const args = argsFor(p.call, tool?.schema);
    const item =
      tool?.kind === 'custom'
        ? { type: 'custom_tool_call', id: `ctc_${n}`, call_id: `call_${n}`, name: p.call.name, input: args.input ?? '' }
        : tool?.kind === 'local_shell'
          ? {
              type: 'local_shell_call',
              id: `lsc_${n}`,
              call_id: `call_${n}`,
              status: 'completed',
              action: { type: 'exec', command: ['bash', '-lc', p.call.command ?? 'true'] },
            }
          : {
              type: 'function_call',
              id: `fc_${n}`,
              call_id: `call_${n}`,
              name: p.call.name,
              arguments: JSON.stringify(args),
            };
    ev('response.output_item.done', { type: 'response.output_item.done', output_index: 1, item });
  }
  ev('response.completed', {
    type: 'response.completed',
    response: {
      id,
      usage: {
        input_tokens: counts(n).input + counts(n).cacheRead,
        input_tokens_details: { cached_tokens: counts(n).cacheRead },
        output_tokens: counts(n).output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: counts(n).input + counts(n).cacheRead + counts(n).output,
      },
    },
  });
  res.end();
}

// ---- Gemini
async function gemini(j, url, res) {
  if (/:countTokens/.test(url)) return send(res, 200, { totalTokens: 10 });
  const contents = j.contents ?? [];
  const last = contents.at(-1) ?? {};
  const parts = last.parts ?? [];
  const afterTool = parts.some((x) => x.functionResponse);
  const said = strip(
    parts
      .map((x) => x.text ?? '')
      .filter(Boolean)
      .at(-1),
  );
  const tools = (j.tools ?? [])
    .flatMap((t) => t.functionDeclarations ?? [])
    .map((f) => ({ name: f.name, schema: f.parameters ?? f.parametersJsonSchema }));
  const side = tools.length === 0;
  const p = plan({ said, tools, afterTool, side, sideText: said });
  log(
    `gemini ${url.split('?')[0]} tools=${tools.length} said=${JSON.stringify(said).slice(0, 120)} -> ${p.error ?? p.call?.name ?? 'text'}`,
  );
  if (p.error)
    return send(res, p.error, {
      error: {
        code: p.error,
        message: p.error === 400 ? 'Mock refuses this request' : 'Mock overloaded',
        status: p.error === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL',
      },
    });
  // A side request that wants JSON (a next-speaker check, a routing choice) gets it.
  const wantsJson =
    j.generationConfig?.responseMimeType === 'application/json' || j.config?.responseMimeType === 'application/json';
  const text = wantsJson ? '{"next_speaker": "user", "reasoning": "done", "model_choice": "flash"}' : p.text;
  const out = [{ text }];
  if (p.call)
    out.push({
      functionCall: { name: p.call.name, args: argsFor(p.call, tools.find((t) => t.name === p.call.name)?.schema) },
    });
  const c = counts(++n);
  const body = {
    candidates: [{ content: { role: 'model', parts: out }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: c.input + c.cacheRead,
      candidatesTokenCount: c.output,
      cachedContentTokenCount: c.cacheRead,
      totalTokenCount: c.input + c.cacheRead + c.output,
    },
    modelVersion: 'mock',
  };
  await later(p.delay ?? 0);
  if (!/:streamGenerateContent/.test(url)) return send(res, 200, body);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${JSON.stringify(body)}\r\n\r\n`);
  res.end();
}

http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let j = {};
      try {
        j = JSON.parse(body || '{}');
      } catch {}
      const url = req.url ?? '';
      // MOCK_DUMP=<folder>: each request's body kept there, to see what an agent sends.
      if (process.env.MOCK_DUMP)
        fs.writeFileSync(`${process.env.MOCK_DUMP}/${String(++n).padStart(4, '0')}.json`, body);
      const run = async () => {
        if (req.method === 'GET' && /\/models/.test(url))
          return send(res, 200, {
            object: 'list',
            data: [{ id: 'mock-model', object: 'model', owned_by: 'mock' }],
            models: [],
          });
        if (req.method !== 'POST') return send(res, 200, {});
        if (/count_tokens/.test(url)) return send(res, 200, { input_tokens: 10 });
        if (/\/messages/.test(url)) return anthropic(j, res);
        if (/chat\/completions/.test(url)) return chat(j, res);
        if (/\/responses/.test(url)) return responses(j, res);
        if (/:(streamGenerateContent|generateContent|countTokens)/.test(url)) return gemini(j, url, res);
        log(`unknown ${req.method} ${url}`);
        return send(res, 404, { error: { message: 'not here' } });
      };
      run().catch((err) => {
        log(`error ${err.stack}`);
        if (!res.headersSent) send(res, 500, { error: { message: String(err) } });
        else res.end();
      });
    });
  })
  .listen(port, '127.0.0.1', () => log(`listening ${port}`));
