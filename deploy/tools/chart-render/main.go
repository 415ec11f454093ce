// chart-render renders a Helm chart's templates the way `helm template` does, for machines without
// helm: Go text/template + sprig + Helm's extra functions, missingkey=zero with "<no value>" removed,
// values.yaml deep-merged with -f files. It deliberately has no .Files, lookup or subcharts, so a
// chart that renders here uses nothing a cluster-less render cannot see.
//
// Build (GOPATH mode, Debian packages golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o .bin/chart-render .
//
// Usage: chart-render [--release NAME] [--namespace NS] [-f values.yaml]... [--notes] CHART_DIR
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"
)

type options struct {
	chartDir    string
	release     string
	namespace   string
	valueFiles  []string
	notes       bool
	kubeVersion string
}

func main() {
	opts, err := parseArgs(os.Args[1:])
	if err == nil {
		err = run(opts)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "chart-render: %v\n", err)
		os.Exit(1)
	}
}

func parseArgs(args []string) (options, error) {
	o := options{release: "release-name", namespace: "default", kubeVersion: "v1.30.0"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "-f", "--values":
			var v string
			v, err = next()
			o.valueFiles = append(o.valueFiles, v)
		case "--release", "-r":
			o.release, err = next()
		case "--namespace", "-n":
			o.namespace, err = next()
		case "--kube-version":
			o.kubeVersion, err = next()
		case "--notes":
			o.notes = true
		default:
			if strings.HasPrefix(a, "-") || o.chartDir != "" {
				return o, fmt.Errorf("unexpected argument %q", a)
			}
			o.chartDir = a
		}
		if err != nil {
			return o, err
		}
	}
	if o.chartDir == "" {
		return o, errors.New("usage: chart-render [--release NAME] [--namespace NS] [-f values.yaml]... [--notes] CHART_DIR")
	}
	return o, nil
}

func run(o options) error {
	chart, err := loadChart(o.chartDir)
	if err != nil {
		return err
	}
	values, err := readYamlMap(filepath.Join(o.chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, f := range o.valueFiles {
		extra, err := readYamlMap(f)
		if err != nil {
			return err
		}
		values = mergeValues(values, extra)
	}
	chartName, _ := chart["Name"].(string)
	files, root, err := parseTemplates(o.chartDir, chartName)
	if err != nil {
		return err
	}
	base := map[string]interface{}{
		"Values": values,
		"Chart":  chart,
		"Release": map[string]interface{}{
			"Name": o.release, "Namespace": o.namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": kubeVersion(o.kubeVersion),
		},
	}
	var out bytes.Buffer
	for _, name := range files {
		isNotes := strings.HasSuffix(name, "/NOTES.txt")
		if isNotes != o.notes {
			continue
		}
		text, err := render(root, name, base)
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if o.notes {
			out.WriteString(text)
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", name, strings.TrimRight(text, "\n"))
	}
	_, err = os.Stdout.Write(out.Bytes())
	return err
}

// loadChart reads Chart.yaml into the capitalised fields Helm exposes as .Chart.
func loadChart(dir string) (map[string]interface{}, error) {
	raw, err := readYamlMap(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	if raw["apiVersion"] != "v2" {
		return nil, errors.New("Chart.yaml: apiVersion must be v2")
	}
	if _, ok := raw["dependencies"]; ok {
		return nil, errors.New("Chart.yaml: dependencies (subcharts) are not supported; the chart must render on its own")
	}
	for _, key := range []string{"name", "version"} {
		if s, _ := raw[key].(string); s == "" {
			return nil, fmt.Errorf("Chart.yaml: %s is required and must be a string", key)
		}
	}
	fields := map[string]string{
		"name": "Name", "version": "Version", "appVersion": "AppVersion", "description": "Description",
		"apiVersion": "APIVersion", "type": "Type", "kubeVersion": "KubeVersion", "home": "Home",
	}
	chart := map[string]interface{}{}
	for k, v := range raw {
		if name, ok := fields[k]; ok {
			chart[name] = v
		}
	}
	return chart, nil
}

// parseTemplates loads every file under templates/ into one set named "<chart>/templates/<file>",
// so defines from _helpers.tpl are visible everywhere. It returns the renderable names, sorted.
func parseTemplates(chartDir, chartName string) ([]string, *template.Template, error) {
	dir := filepath.Join(chartDir, "templates")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var root *template.Template
	root = template.New(chartName).Funcs(funcMap(&root)).Option("missingkey=zero")
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			return nil, nil, fmt.Errorf("templates/%s: nested template folders are not supported", e.Name())
		}
		content, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, err
		}
		name := chartName + "/templates/" + e.Name()
		if _, err := root.New(name).Parse(string(content)); err != nil {
			return nil, nil, err
		}
		if !strings.HasPrefix(e.Name(), "_") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, root, nil
}

func render(root *template.Template, name string, base map[string]interface{}) (string, error) {
	data := map[string]interface{}{}
	for k, v := range base {
		data[k] = v
	}
	data["Template"] = map[string]interface{}{"Name": name, "BasePath": filepath.Dir(name)}
	var buf bytes.Buffer
	if err := root.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
}

func readYamlMap(path string) (map[string]interface{}, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(content, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// mergeValues deep-merges override into base like Helm: maps merge key by key, anything else
// replaces, and an explicit null removes the key.
func mergeValues(base, override map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range override {
		if v == nil {
			delete(out, k)
			continue
		}
		bm, bok := out[k].(map[string]interface{})
		om, ook := v.(map[string]interface{})
		if bok && ook {
			out[k] = mergeValues(bm, om)
		} else {
			out[k] = v
		}
	}
	return out
}

func kubeVersion(v string) map[string]interface{} {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	for len(parts) < 2 {
		parts = append(parts, "0")
	}
	return map[string]interface{}{"Version": v, "GitVersion": v, "Major": parts[0], "Minor": parts[1]}
}
