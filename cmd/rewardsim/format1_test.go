package main

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// A state file of format 1 (builds up to 1cfa526) wrote every GetReward's
// idempotency record into the channel's txn bucket and left its
// sequence at 0; format 2 keeps recent records in the cards (issue 56).
// Such a file is served as it is: a GetReward sent again answers the card
// it answered before (GR-4), and the file is marked this build's format
// (3) at open.
func TestServe_readsFormat1StateFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs real processes")
	}
	bin, data := buildBinary(t), t.TempDir()
	path := filepath.Join(data, "rewardsim.db")
	key, all := issueTwenty(t, bin, data, "F1")

	// Leave the file as format 1 did: every record in the txn bucket,
	// whose sequence is 0.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		txb := tx.Bucket([]byte("cards\x00DEMOBANK\x00txn"))
		for _, a := range all {
			rec := binary.AppendUvarint([]byte{1}, a.rewardID)
			if err := txb.Put([]byte("GetReward\x00"+a.body["extTransactionId"].(string)), rec); err != nil {
				return err
			}
		}
		if err := txb.SetSequence(0); err != nil {
			return err
		}
		return tx.Bucket([]byte("format")).Put([]byte("version"), []byte("1"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	sv := startBinary(t, bin, data)
	checkAcked(t, sv.demoClient(t, key), all)
	stopServed(sv)
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = db.View(func(tx *bolt.Tx) error {
		if v := string(tx.Bucket([]byte("format")).Get([]byte("version"))); v != "3" {
			t.Errorf("the file's format after this build opened it: %q, want 3", v)
		}
		return nil
	})
	db.Close()
	checkBolt(t, path)
}
