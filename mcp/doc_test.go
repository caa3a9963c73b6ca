package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsDescribeEveryTool: docs/mcp.md, the contract in prose, names
// every tool and every one of its arguments, so a tool or argument added
// to the registry cannot go undescribed; and it points nowhere outside the
// repository.
func TestDocsDescribeEveryTool(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	defs, err := Exposed(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		tool := Tool(d)
		if !strings.Contains(doc, "`"+tool.Name+"`") {
			t.Errorf("docs/mcp.md does not describe %s", tool.Name)
			continue
		}
		schema, ok := tool.InputSchema.(map[string]any)
		if !ok {
			t.Fatalf("%s: input schema is a %T", tool.Name, tool.InputSchema)
		}
		props, _ := schema["properties"].(map[string]any)
		for name := range props {
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/mcp.md does not describe %s's argument %s", tool.Name, name)
			}
		}
	}
	if strings.Contains(doc, "../shared") || strings.Contains(doc, "mcp-server.md") {
		t.Error("docs/mcp.md points outside the repository")
	}
}
