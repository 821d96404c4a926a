// Package atomicfile writes files so that a reader, or a process started after a crash, finds the
// target either as it was or complete, never half written: the content goes to a temporary file in
// the target's directory, which is synced, renamed over the target, and the directory synced.
//
// Temporary names follow one scheme, TempName: "." + the target's base name + ".tmp-" + decimal
// digits (os.CreateTemp's random part), e.g. ".gen-0003.ckpt.tmp-2424784198": hidden, next to its
// target, and naming it (Target). IsTemp also recognises the two schemes earlier builds wrote, so that
// their leftovers are still found: ".NAME.DIGITS.tmp" (datasets' atomic file) and "NAME.DIGITS.tmp"
// (the shard writer's shard-NNNNNN.yz.DIGITS.tmp).
//
// Every file this package creates has mode 0644 (not subject to the umask). Errors name the target
// (or the temporary file, through the *os.PathError of the call that failed) and carry no package
// prefix: callers add their own.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Mode is the permission of every file this package creates.
const Mode fs.FileMode = 0o644

// tempInfix separates the target's name from the random digits in a temporary name.
const tempInfix = ".tmp-"

// TempName is the name of a temporary file for target (a base name) with the random part random
// (decimal digits): "." + target + ".tmp-" + random.
func TempName(target, random string) string { return "." + target + tempInfix + random }

// Target returns the base name of the file that the temporary file name was being written for, and
// true, when name is a temporary name of this package's scheme or of an earlier one (see the package
// comment); otherwise false.
func Target(name string) (string, bool) {
	if strings.ContainsAny(name, `/\`) {
		return "", false
	}
	// ".NAME.tmp-DIGITS" (this scheme, and model.WriteFileAtomic's before the package existed)
	if i := strings.LastIndex(name, tempInfix); i > 1 && name[0] == '.' && digits(name[i+len(tempInfix):]) {
		return name[1:i], true
	}
	// ".NAME.DIGITS.tmp" (datasets.CreateAtomic) and "NAME.DIGITS.tmp" (the shard writer)
	if rest, ok := strings.CutSuffix(name, ".tmp"); ok {
		if i := strings.LastIndexByte(rest, '.'); i > 0 && digits(rest[i+1:]) {
			target := strings.TrimPrefix(rest[:i], ".")
			if target != "" {
				return target, true
			}
		}
	}
	return "", false
}

// IsTemp reports whether name (a base name) is a temporary file of this package or of an earlier
// build's scheme: what a process that was killed while writing leaves behind.
func IsTemp(name string) bool {
	_, ok := Target(name)
	return ok
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// hook, when set by a test, is called before each step of a write ("write", "sync", "close",
// "rename"); an error it returns fails the write at that step.
var hook func(step string) error

func step(name string) error {
	if hook != nil {
		return hook(name)
	}
	return nil
}

// CreateTemp creates a new temporary file in dir for a file that is to be named target (a base
// name), with mode Mode. It is for writers that rename the file themselves (the shard writer, which
// picks the final name when the shard is complete); WriteFile and Create use it.
func CreateTemp(dir, target string) (*os.File, error) {
	f, err := os.CreateTemp(dir, TempName(target, "*"))
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(Mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// WriteFile writes data to path atomically: a temporary file in the same directory is written,
// synced, closed and renamed over path, then the directory is synced. On any error path is left as
// it was and the temporary file is removed.
func WriteFile(path string, data []byte) (err error) {
	f, err := CreateTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = step("write"); err == nil {
		_, err = f.Write(data)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = step("sync"); err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err = step("close"); err == nil {
		err = f.Close()
	}
	if err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	if err = step("rename"); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return err
	}
	SyncDir(filepath.Dir(path))
	return nil
}

// SyncDir makes a rename in dir durable, where the system can sync a directory (best effort: an
// error is not reported, since some systems cannot).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// File is a new file written under a temporary name in the target's directory and renamed into place
// by Commit, so that the target is either absent, unchanged, or complete. Write to it as to any
// *os.File; end with Commit or Abort.
type File struct {
	*os.File
	path      string
	overwrite bool
	done      bool
}

// Create starts writing path. Unless overwrite is set, an existing path is an error wrapping
// fs.ErrExist, checked now and again at Commit.
func Create(path string, overwrite bool) (*File, error) {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrExist)
		}
	}
	f, err := CreateTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path, overwrite: overwrite}, nil
}

// Commit syncs and closes the file and renames it into place. On an error the temporary file is
// removed and the target left as it was.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomic file already committed or aborted")
	}
	f.done = true
	tmp := f.Name()
	err := step("sync")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && !f.overwrite {
		if _, serr := os.Lstat(f.path); serr == nil {
			err = fmt.Errorf("%s: %w", f.path, fs.ErrExist)
		}
	}
	if err == nil {
		if err = step("rename"); err == nil {
			err = os.Rename(tmp, f.path)
		}
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	SyncDir(filepath.Dir(f.path))
	return nil
}

// Abort closes and removes the temporary file; the target is untouched. It is a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}
