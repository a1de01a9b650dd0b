// Stands in for @vybestack/llxprt-code-mcp's DiscoveredMCPTool
// (packages/mcp/src/client/mcp-tool.ts at f80a695): it keeps what the host
// registers — the callable tool, its server's name, its name, and whether
// the host trusts it (then LLxprt runs it without asking) — and calls it
// as DiscoveredMCPToolInvocation.execute does: one function call through
// the callable, the MCP result as the function response.
export class DiscoveredMCPTool {
  constructor(mcpTool, serverName, serverToolName, description, parameterSchema, trust) {
    this.mcpTool = mcpTool;
    this.serverName = serverName;
    this.serverToolName = serverToolName;
    this.description = description;
    this.parameterSchema = parameterSchema;
    this.trust = trust;
  }

  async call(args) {
    const parts = await this.mcpTool.callTool([{ name: this.serverToolName, args }]);
    return parts[0].functionResponse.response;
  }
}
