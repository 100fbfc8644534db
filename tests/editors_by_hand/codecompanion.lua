-- Drive CodeCompanion.nvim headless against the agent and dump the chat buffer after each step.
--   OUT=/tmp/cc.txt AGENT=/path/to/.venv/bin/acp nvim --headless --clean -u NONE \
--     --cmd 'set packpath^=/tmp/editors' -l tests/editors_by_hand/codecompanion.lua
-- The agent's model comes from the environment (OPENAI_BASE_URL ...; scripted_model.py).
local out = assert(io.open(os.getenv("OUT") or "/tmp/cc.txt", "w"))
local function say(s) out:write(s .. "\n"); out:flush() end

vim.cmd("packloadall")
require("codecompanion").setup({
  adapters = {
    acp = {
      reasonix = function()
        return require("codecompanion.adapters").extend("gemini_cli", {
          name = "reasonix",
          formatted_name = "Reasonix",
          commands = { default = { os.getenv("AGENT") } },
          defaults = { auth_method = "reasonix-setup" },
        })
      end,
    },
  },
  interactions = { chat = { adapter = "reasonix" } },
  opts = { log_level = "DEBUG" },
})

local approval = false
vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionToolApprovalRequested",
  callback = function() approval = true end,
})

require("codecompanion").chat()
local chat = require("codecompanion.interactions.chat").last_chat()
assert(chat, "no chat")

local function dump(label)
  say(("==== %s ===="):format(label))
  for _, l in ipairs(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false)) do say(l) end
end

local function dump_virt(label)
  say(("==== %s: virtual text ===="):format(label))
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.bufnr, -1, 0, -1, { details = true })) do
    local d = m[4]
    local texts = {}
    for _, chunk in ipairs(d.virt_text or {}) do table.insert(texts, chunk[1]) end
    for _, vl in ipairs(d.virt_lines or {}) do
      for _, chunk in ipairs(vl) do table.insert(texts, chunk[1]) end
    end
    if #texts > 0 then say(("line %d: %s"):format(m[2] + 1, table.concat(texts, ""))) end
  end
end

local function settle(ms)
  vim.wait(ms or 60000, function() return approval or (chat.current_request == nil) end, 50)
  vim.wait(300)
end

local function send(text)
  approval = false
  local n = vim.api.nvim_buf_line_count(chat.bufnr)
  vim.bo[chat.bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(chat.bufnr, n, n, false, vim.split(text, "\n"))
  chat:submit()
  vim.wait(500)
  settle()
end

local function set_option(id, value)
  if not chat.acp_connection then send("Hello"); dump("hello") end
  say(("-- set %s = %s"):format(id, value))
  chat.acp_connection:set_config_option(id, value)
  vim.wait(1000)
end

local function press(label)
  for _, m in ipairs(vim.api.nvim_buf_get_keymap(chat.bufnr, "n")) do
    if m.desc == label and m.callback then
      say(("-- pressing %s (%s)"):format(m.lhs, label))
      approval = false
      m.callback()
      vim.wait(500)
      settle()
      return true
    end
  end
  say("-- no key for " .. label)
end

local steps = vim.split(os.getenv("STEPS") or "ask", ",")
for _, step in ipairs(steps) do
  if step == "ask" then
    send("Pick a colour for me @@ASK"); dump("ask: question")
    send("2"); dump("ask: answered 2")
  elseif step == "plan" then
    if not chat.acp_connection then send("Hello"); dump("hello") end
    local conn = chat.acp_connection
    for _, opt in ipairs(conn:get_config_options()) do
      say(("-- config option %s (%s) = %s"):format(opt.id, tostring(opt.category), tostring(opt.currentValue)))
      if opt.category == "mode" or opt.id == "mode" then conn:set_config_option(opt.id, "plan") end
    end
    vim.wait(1000)
    send("Plan the colour change @@PLAN"); dump("plan: question")
    press("Always accept"); dump("plan: stayed")
    send("Plan it again @@PLAN"); dump("plan: asked again")
    press("Accept"); dump("plan: started")
  elseif step == "ro" then
    set_option("tool_approval", "read-only")
  elseif step == "bg" then
    send("Start the ticker @@BG"); dump("bg: question")
    press("Accept"); dump("bg: accepted")
  elseif step == "cmd" then
    send("Make the build folder @@CMD"); dump("cmd: question")
    press("Always accept"); dump("cmd: always")
    send("Again @@CMD"); dump("cmd: second time")
  elseif step == "task" then
    send("Read the notes with a subagent @@TASK"); dump("task")
  elseif step == "compact" then
    dump_virt("before compact")
    send("/compact"); vim.wait(2000); dump("compact"); dump_virt("after compact")
    send("/status"); dump("status")
  end
end
dump("final")
out:close()
vim.cmd("qa!")
