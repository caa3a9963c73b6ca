package main

import "testing"

func TestChunkComplete(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{`print(1)`, true},
		{`print(`, false},
		{`for i = 1, 3 do`, false},
		{"for i = 1, 3 do\n print(i)\nend", true},
		{`if x then`, false},
		{"if x then\nelseif y then\nelse\nend", true},
		{"if x then\nelseif y then", false},
		{`local f = function()`, false},
		{"local t = {\n 1,", false},
		{"local t = {1}", true},
		{"repeat\n x += 1", false},
		{"repeat\n x += 1\nuntil x > 3", true},
		{"while true do end", true},
		{`local s = "end"`, true},
		{`local s = "function"`, true},
		{`local s = [[`, false},
		{"local s = [[\nfunction\n]]", true},
		{"local s = [==[ ]] ]==]", true},
		{"-- function", true},
		{"--[[ function", false},
		{"--[[ function ]] print(1)", true},
		{"local s = `a {x} b`", true},
		{"local s = `a", false},
		{`print("a\"b")`, true},
		{"end", true},
		{"x.end_ = 1", true},
		{"local t = a[1]", true},
		{"", true},
	}
	for _, tt := range tests {
		if got := chunkComplete(tt.src); got != tt.want {
			t.Errorf("chunkComplete(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
