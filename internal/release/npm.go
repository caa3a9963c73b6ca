package release

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// templates are the npm packages' files, as templates (text/template, with
// json to quote a value as JSON).
//
//go:embed npm
var templates embed.FS

// The project's home, as the npm packages name it (repository in the
// object form npm publishes).
const homepage = "https://github.com/studio-bridge/studio-bridge#readme"

var repository = map[string]string{"type": "git", "url": "git+https://github.com/studio-bridge/studio-bridge.git"}

// NPMDir is the folder of the npm package name under out's npm folder:
// @studio-bridge/cli-linux-x64 → <out>/npm/cli-linux-x64.
func NPMDir(out, name string) string {
	return filepath.Join(out, "npm", name[strings.LastIndex(name, "/")+1:])
}

// WritePlatformPackage writes the npm package of target t into dir: its
// package.json (limited to t's os and cpu), README.md and the binary bin as
// bin/studio-bridge[.exe], executable.
func WritePlatformPackage(dir string, t Target, v Version, bin string) error {
	data := map[string]any{
		"Name":        t.NPMName(),
		"Version":     v.NPM,
		"Description": fmt.Sprintf("The studio-bridge binary for %s %s; install %s, which runs it.", t.NPMOS, t.NPMCPU, NPMPackage),
		"OS":          t.NPMOS,
		"CPU":         t.NPMCPU,
		"Main":        NPMPackage,
		"Repository":  repository,
		"Homepage":    homepage,
	}
	if err := writeTemplates(dir, "npm/platform", data); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	return copyExecutable(bin, filepath.Join(dir, "bin", t.Exe()))
}

// WriteMainPackage writes the npm package users install, NPMPackage, into
// dir: package.json with the platform packages of targets as
// optionalDependencies at exactly this version, README.md, and the Node
// shim bin/studio-bridge.js that runs the installed platform's binary.
func WriteMainPackage(dir string, targets []Target, v Version) error {
	deps := map[string]string{}
	packages := map[string]string{}
	var platforms []string
	for _, t := range targets {
		deps[t.NPMName()] = v.NPM
		packages[t.NPMOS+"-"+t.NPMCPU] = t.NPMName()
		platforms = append(platforms, t.NPMOS+" "+t.NPMCPU)
	}
	data := map[string]any{
		"Name":                 NPMPackage,
		"Version":              v.NPM,
		"OptionalDependencies": deps,
		"Packages":             packages,
		"Platforms":            strings.Join(platforms, ", "),
		"Repository":           repository,
		"Homepage":             homepage,
	}
	if err := writeTemplates(dir, "npm/cli", data); err != nil {
		return err
	}
	// The shim is the package's bin: executable, for npm links it as is.
	return os.Chmod(filepath.Join(dir, "bin", "studio-bridge.js"), 0o755)
}

// writeTemplates executes every template under root in templates with data
// into dir, keeping the folder structure and dropping the .tmpl suffix. A
// package.json must come out as valid JSON; it is written indented.
func writeTemplates(dir, root string, data any) error {
	entries, err := templates.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		src := root + "/" + e.Name()
		dst := filepath.Join(dir, strings.TrimSuffix(e.Name(), ".tmpl"))
		if e.IsDir() {
			if err := writeTemplates(dst, src, data); err != nil {
				return err
			}
			continue
		}
		text, err := templates.ReadFile(src)
		if err != nil {
			return err
		}
		tmpl, err := template.New(src).Option("missingkey=error").Funcs(template.FuncMap{"json": toJSON}).Parse(string(text))
		if err != nil {
			return fmt.Errorf("template %s: %w", src, err)
		}
		var out bytes.Buffer
		if err := tmpl.Execute(&out, data); err != nil {
			return fmt.Errorf("template %s: %w", src, err)
		}
		body := out.Bytes()
		if filepath.Base(dst) == "package.json" {
			var indented bytes.Buffer
			if err := json.Indent(&indented, body, "", "  "); err != nil {
				return fmt.Errorf("template %s makes invalid JSON: %w", src, err)
			}
			body = indented.Bytes()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, body, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// toJSON is the templates' json: v as JSON, map keys sorted.
func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// copyExecutable copies the file src to dst with mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read only
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close() // the copy's error says more
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755) // OpenFile's mode passes through the umask
}
