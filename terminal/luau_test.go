package terminal

import (
	"strings"
	"testing"
)

func TestChunkComplete(t *testing.T) {
	t.Parallel()
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
		// An if-expression opens no block: it ends with its else branch.
		{"print(if a then b else c)", true},
		{"local x = if a then 1 elseif b then 2 else 3", true},
		{"return if a then if b then 1 else 2 else 3", true},
		{"local t = {if a then 1 else 2, 3}", true},
		{"x = if a then 1", false},
		{"x = if a then 1 else", false},
		{"print(if a then", false},
		{"local f = function() return if a then 1 else 2 end", true},
		{"if a then x = if b then 1 else 2 end", true},
		{"if a then x = if b then 1 else 2", false},
		{"if a then if b then f() end end", true},
		{"if a then f() else if b then g() end end", true},
		{"if x == if a then b else c then f() end", true},
		{"if c then x = if a then 1 else 2 else if d then f() end end", true},
		{"if c then x = if a then 1 else 2 else if d then f() end", false},
		{"if a", false},
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
		{"x = y.", false},
		{"x = a -", false},
		{"x = a *", false},
		{"x = a /", false},
		{"x = a //", false},
		{"x = a %", false},
		{"x = a ^", false},
		{"ok = a <=", false},
		{"ok = a >", false},
		{"ok = a >=", false},
		{"x -=", false},
		{"x *=", false},
		{"x /=", false},
		{"x %=", false},
		{"x ^=", false},
		{"s ..=", false},
		{"local a, b =", false},
		{"x = a and -- why\n", false},
		{"x = a + --[[ why ]]", false},
		{"x = a + --[==[ ]] ]==]", false},
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
		{"x = a --[==[ ]] + ]==]", true},
		{"s = [==[ ]] .. ]==]", true},
		{"s = 'a ..'", true},
		{"obj:m()", true},
		{"x = f(...)", true},
		{"x = a + b -- +", true},
		{"local a, b = 1, 2", true},
		// A quoted string cannot span lines: an unclosed one makes the
		// chunk complete (no line can mend it) and the compiler reports
		// it…
		{`print("oops`, true},
		{`print('oops`, true},
		{`print("a\\`, true},             // an escaped backslash, then the end
		{"print(\"oops\nprint(1)", true}, // the newline ended it
		{"for i = 1, 2 do print(\"x", true},
		// …unless a backslash carries it onto the next line, or \z skips
		// the newline.
		{`print("a\`, false},
		{`print('a\`, false},
		{`print("a\z`, false},
		{"print(\"a\\z  \t", false},
		{"print(\"a\\\nb\")", true},
		{"print(\"a\\z\n   b\")", true},
		{"print(\"a\\z\n   b", true},
		{`print("a\zb`, true},
	}
	for _, tt := range tests {
		if got := chunkComplete(tt.src); got != tt.want {
			t.Errorf("chunkComplete(%q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{`print(1)`, `print(1)`},
		{"for i = 1, 2 do\n  print(i)\nend", "for i = 1, 2 do   print(i) end"},
		{"x = 1 -- one\nprint(x)", "x = 1 --[[ one ]] print(x)"},
		{"x = 1 -- a]] b\nprint(x)", "x = 1 --[=[ a]] b ]=] print(x)"},
		{"x = 1 --]\nprint(x)", "x = 1 --[[] ]] print(x)"},
		{"--[[ a\nb ]] print(1)", "--[[ a b ]] print(1)"},
		{"s = [[\nline 1\n\"2\" \\ ]]\nprint(s)", `s = "line 1\n\"2\" \\ " print(s)`},
		{"s = [==[a\n]]]==]", `s = "a\n]]"`},
		{"s = [[one line]]\nprint(s)", "s = [[one line]] print(s)"},
		{"s = \"a\\\nb\"\nprint(s)", `s = "a\nb" print(s)`},
		{"s = \"a\\z\n  b\"", `s = "a\z   b"`},
		{"s = 'it''s'\nprint(s)", "s = 'it''s' print(s)"},
		{"s = \"--\"\nprint(s)", `s = "--" print(s)`},
		{"s = `a\nb`", "s = `a\\nb`"},
	}
	for _, tt := range tests {
		got := oneLine(tt.src)
		if got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.src, got, tt.want)
		}
		if strings.ContainsAny(got, "\r\n") || chunkComplete(got) != chunkComplete(tt.src) {
			t.Errorf("oneLine(%q) = %q: not one line, or not as complete", tt.src, got)
		}
	}
}
