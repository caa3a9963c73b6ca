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
		// A last token that needs more continues the chunk.
		{"local x =", false},
		{"x = 1 +", false},
		{"x = 1 + -- more below", false},
		{"local a,", false},
		{"return a and", false},
		{"return a or", false},
		{"x = not", false},
		{"f(x).", false},
		{"obj:", false},
		{"local", false},
		{"s = a ..", false},
		{"x += ", false},
		{"x //=", false},
		{"ok = a ==", false},
		{"ok = a ~=", false},
		{"ok = a <", false},
		{"n = #", false},
		{"for k, v in", false},
		{"repeat x += 1 until", false},
		// …and one that can end a statement does not.
		{"return", true},
		{"local x = 1", true},
		{"x = a -- comment", true},
		{`s = "a +"`, true},
		{"s = [[a +]]", true},
		{"f(...)", true},
		{"return ...", true},
		{"x = 1.", true},
		{"x = 1e-5", true},
		{"x = 0x1F", true},
		{"x = y.z", true},
		{"x = -1", true},
		{"x = a --[[ + ]]", true},
	}
	for _, tt := range tests {
		if got := chunkComplete(tt.src); got != tt.want {
			t.Errorf("chunkComplete(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}
