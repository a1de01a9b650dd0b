-- Neovim (0.7+) driving `lspkit lsp` as its language server, headless: the
-- test writes a spec (JSON) naming the file and what to ask, and reads the
-- answers this script writes. Run: nvim --headless -u NONE -c "luafile drive.lua".
local spec = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("LSPKIT_NVIM_SPEC")), "\n"))
local out = {}
local function finish(err)
  out.error = err
  vim.fn.writefile({ vim.fn.json_encode(out) }, spec.out)
  vim.cmd(err and "cquit 1" or "qall!")
end
local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(spec.file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = spec.filetype
  local id = vim.lsp.start_client({ name = "lspkit", cmd = spec.cmd, root_dir = spec.root })
  assert(id, "the client did not start")
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(60000, function() return client.initialized end, 50), "not initialized within 60 s")
  out.server = client.server_capabilities and client.server_capabilities.hoverProvider and "hover" or "none"

  local function messages()
    local m = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(m, d.message) end
    return m
  end
  -- The file as it is on disk has an error.
  assert(vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50), "no diagnostics within 60 s")
  out.broken = messages()
  -- Fixed in the buffer, unsaved: the findings clear.
  vim.api.nvim_buf_set_lines(buf, spec.fix.line, spec.fix.line + 1, false, { spec.fix.text })
  assert(vim.wait(60000, function() return #vim.diagnostic.get(buf) == 0 end, 50), "the fix's diagnostics did not clear within 60 s: " .. vim.inspect(messages()))
  out.fixed = messages()

  local function at(pos)
    return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = pos[1], character = pos[2] } }
  end
  local function ask(method, params)
    local res = vim.lsp.buf_request_sync(buf, method, params, 60000)
    assert(res and res[id], method .. ": no answer")
    assert(not res[id].error, method .. ": " .. vim.inspect(res[id].error))
    return res[id].result
  end
  local def = ask("textDocument/definition", at(spec.definition))
  if def and def[1] then def = def[1] end
  out.definition = def and { uri = def.uri or def.targetUri, line = (def.range or def.targetSelectionRange).start.line } or vim.NIL
  local refs_params = at(spec.references)
  refs_params.context = { includeDeclaration = true }
  out.references = #(ask("textDocument/references", refs_params) or {})
  local hover = ask("textDocument/hover", at(spec.definition))
  out.hover = hover and (type(hover.contents) == "table" and (hover.contents.value or vim.inspect(hover.contents)) or hover.contents) or vim.NIL

  local rename_params = at(spec.rename.at)
  rename_params.newName = spec.rename.to
  local edit = ask("textDocument/rename", rename_params)
  assert(edit, "rename: no edit")
  vim.lsp.util.apply_workspace_edit(edit, "utf-16")
  out.renamed = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")

  vim.api.nvim_buf_set_lines(buf, spec.unformatted.line, spec.unformatted.line + 1, false, { spec.unformatted.text })
  local edits = ask("textDocument/formatting", { textDocument = { uri = vim.uri_from_bufnr(buf) }, options = { tabSize = 4, insertSpaces = spec.insertSpaces } })
  if edits then vim.lsp.util.apply_text_edits(edits, buf, "utf-16") end
  out.formatted = vim.api.nvim_buf_get_lines(buf, spec.unformatted.line, spec.unformatted.line + 1, false)[1]

  vim.lsp.stop_client(id)
  out.stopped = vim.wait(10000, function() return vim.lsp.client_is_stopped(id) end, 50)
end)
finish(not ok and tostring(err) or nil)
