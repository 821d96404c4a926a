package train

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/internal/strictyaml"
)

// LoadConfig reads a YAML config file over the defaults and applies key=value overrides (YAML paths
// such as selfplay.simulations=128 or training.optimizer.schedule.lr=0.01), then validates. A file
// without any key is an error (it would silently train on the defaults).
func LoadConfig(path string, overrides []string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && (doc.Kind == 0 || len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode && len(doc.Content[0].Content) == 0) {
		return Config{}, fmt.Errorf("config %s: empty (no keys): it would train on the built-in defaults; start from one of configs/*.yaml", path)
	}
	return ParseConfig(data, path, overrides)
}

// ParseConfig decodes YAML text (name labels errors) over the defaults, applies overrides, validates.
// Errors name the line and the key's YAML path: an unknown key, a value of the wrong type, a
// section given a scalar; a value that came from an override is named by the override.
func ParseConfig(data []byte, name string, overrides []string) (Config, error) {
	m, err := strictyaml.Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	for _, o := range overrides {
		key, val, ok := strings.Cut(o, "=")
		if !ok || key == "" {
			return Config{}, fmt.Errorf("override %q: want key=value (e.g. selfplay.simulations=128)", o)
		}
		if err := strictyaml.Set(m, strings.Split(key, "."), val); err != nil {
			return Config{}, fmt.Errorf("override %q: %w", o, err)
		}
	}
	cfg := DefaultConfig()
	if err := strictyaml.Check(m, reflect.TypeOf(cfg)); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	if err := m.Decode(&cfg); err != nil { // Check has checked every key and type
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("config %s: %w", name, err)
	}
	return cfg, nil
}

// CheckOverride checks one key=value override on its own, before any file is read: the key must
// name a value of the config (not a section; an unknown key is named with the nearest one) and the
// value must decode into that field. The error says what is wrong without a line or prefix (the
// caller names the override).
func CheckOverride(key, val string) error {
	path := strings.Split(key, ".")
	if err := strictyaml.CheckPath(reflect.TypeOf(Config{}), path); err != nil {
		return err
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if err := strictyaml.Set(m, path, val); err != nil {
		return err
	}
	err := strictyaml.Check(m, reflect.TypeOf(Config{}))
	if e := (*strictyaml.Error)(nil); errors.As(err, &e) {
		return errors.New(e.Msg)
	}
	return err
}
