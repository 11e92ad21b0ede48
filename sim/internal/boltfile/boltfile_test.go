package boltfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var testFile = File{Name: "t.db", Version: 3, Buckets: [][]byte{[]byte("a"), []byte("b")}}

// buckets lists a file's top-level buckets.
func buckets(t *testing.T, db *bolt.DB) []string {
	t.Helper()
	var out []string
	if err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error { out = append(out, string(name)); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// write makes a file in dir with the given buckets and, when version is
// not empty, that format version.
func write(t *testing.T, dir, version string, names ...string) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, testFile.Name), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, n := range names {
			if _, err := tx.CreateBucket([]byte(n)); err != nil {
				return err
			}
		}
		if version == "" {
			return nil
		}
		b, err := tx.CreateBucket(bucketFormat)
		if err != nil {
			return err
		}
		return b.Put(keyVersion, []byte(version))
	}); err != nil {
		t.Fatal(err)
	}
}

// A new file gets its own buckets and its format version, and opens
// again; a file of another format (another version, or none: a build
// from before versions) is refused with ErrFormat, never read.
func TestOpen_formatVersion(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, testFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := buckets(t, db); !slices.Equal(got, []string{"a", "b", "format"}) {
		t.Errorf("a new file's buckets: %q, want its own and format", got)
	}
	db.Close()
	if db, err = Open(dir, testFile, Options{}); err != nil {
		t.Fatalf("reopening the same format: %v", err)
	}
	db.Close()
	for _, tc := range []struct{ name, version, want string }{
		{"another version", "2", "its format is 2, this build's is 3"},
		{"no version", "", "its format is none, this build's is 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tc.version, "a", "old")
			_, err := Open(dir, testFile, Options{})
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t.db") {
				t.Fatalf("Open = %v, want ErrFormat naming the file and %q", err, tc.want)
			}
		})
	}
}

// Remove deletes the file (missing is fine), but not one a process
// holds.
// A file of a version in Reads is opened, and marked with this build's
// version, so a build of the older version then refuses it.
func TestOpen_readsOlderVersions(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "2", "a")
	f := testFile
	f.Reads = []int{2}
	db, err := Open(dir, f, Options{})
	if err != nil {
		t.Fatalf("opening a version in Reads: %v", err)
	}
	if got := buckets(t, db); !slices.Equal(got, []string{"a", "b", "format"}) {
		t.Errorf("buckets after the upgrade: %q", got)
	}
	db.Close()
	old := testFile
	old.Version = 2
	if _, err := Open(dir, old, Options{}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "its format is 3, this build's is 2") {
		t.Fatalf("the older build opening the upgraded file: %v, want ErrFormat", err)
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	if err := Remove(dir, testFile, 0); err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	db, err := Open(dir, testFile, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, testFile, 50*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Errorf("removing a file in use: %v, want ErrLocked", err)
	}
	db.Close()
	other := t.TempDir()
	write(t, other, "2", "x") // another format: removed all the same
	for _, d := range []string{dir, other} {
		if err := Remove(d, testFile, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d, testFile.Name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the file is still there: %v", err)
		}
	}
}

// A trimmed file (the journal) keeps the array free list, another the
// map one; both save it with each commit, so a reopened file of many
// free pages still has them free and passes bbolt's check.
func TestOpen_freelistOfATrimmedFile(t *testing.T) {
	for _, trimmed := range []bool{true, false} {
		f := testFile
		f.Trimmed = trimmed
		dir := t.TempDir()
		db, err := Open(dir, f, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]bolt.FreelistType{true: bolt.FreelistArrayType, false: bolt.FreelistMapType}[trimmed]
		if db.FreelistType != want || db.NoFreelistSync {
			t.Errorf("trimmed %v: free list %q, not saved %v; want %q, saved", trimmed, db.FreelistType, db.NoFreelistSync, want)
		}
		// Write, then delete most of it as a journal's trim does.
		val := make([]byte, 1000)
		for round := range 2 {
			if err := db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte("a"))
				for i := range 2000 {
					k := []byte{byte(round), byte(i >> 8), byte(i)}
					if round == 0 {
						if err := b.Put(k, val); err != nil {
							return err
						}
					} else if err := b.Delete([]byte{0, byte(i >> 8), byte(i)}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		if db, err = Open(dir, f, Options{NoSync: true}); err != nil {
			t.Fatal(err)
		}
		if got := db.Stats().FreePageN; got < 1000 { // about 2 MB freed of 4 KB pages
			t.Errorf("trimmed %v: %d free pages after reopening", trimmed, got)
		}
		if err := db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}); err != nil {
			t.Errorf("trimmed %v: %v", trimmed, err)
		}
		db.Close()
	}
}
