package main

// Helm's template functions on top of sprig, reimplemented with the same semantics as
// helm/pkg/engine/funcs.go so that a chart rendered here renders the same under `helm template`.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"sigs.k8s.io/yaml"
)

// includeDepthLimit mirrors Helm's guard against templates that include themselves forever.
const includeDepthLimit = 1000

// funcMap returns sprig's text functions minus the environment readers (Helm removes them too)
// plus Helm's extras. `root` is filled in once the template set exists, so include/tpl can see it.
func funcMap(root **template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")

	depth := 0
	f["include"] = func(name string, data interface{}) (string, error) {
		depth++
		defer func() { depth-- }()
		if depth > includeDepthLimit {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		var buf bytes.Buffer
		if err := (*root).ExecuteTemplate(&buf, name, data); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := (*root).Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	f["required"] = func(msg string, val interface{}) (interface{}, error) {
		if val == nil {
			return nil, errors.New(msg)
		}
		if s, ok := val.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return val, nil
	}
	f["toYaml"] = toYaml
	f["mustToYaml"] = mustToYaml
	f["fromYaml"] = fromYaml
	f["fromYamlArray"] = fromYamlArray
	f["toJson"] = toJson
	f["mustToJson"] = mustToJson
	f["fromJson"] = fromJson
	f["fromJsonArray"] = fromJsonArray
	// Helm defines lookup against a live cluster; here it fails loudly so the chart never relies on it.
	f["lookup"] = func(...interface{}) (map[string]interface{}, error) {
		return nil, errors.New("lookup is not available: the chart must render without a cluster")
	}
	return f
}

// toYaml trims the trailing newline, as Helm does, so `toYaml | nindent n` lines up.
func toYaml(v interface{}) string {
	s, err := mustToYaml(v)
	if err != nil {
		return ""
	}
	return s
}

func mustToYaml(v interface{}) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

// fromYaml reports errors inside the map under "Error", like Helm, instead of failing the render.
func fromYaml(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYamlArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJson(v interface{}) string {
	s, err := mustToJson(v)
	if err != nil {
		return ""
	}
	return s
}

func mustToJson(v interface{}) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func fromJson(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJsonArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}
