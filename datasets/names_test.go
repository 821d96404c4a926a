package datasets

import "testing"

func TestShardNames(t *testing.T) {
	for n, name := range map[int]string{0: "shard-000000.yz", 7: "shard-000007.yz", 123456: "shard-123456.yz",
		1234567: "shard-1234567.yz", 999_999_999: "shard-999999999.yz"} {
		if got := ShardName(n); got != name {
			t.Errorf("ShardName(%d) = %q, want %q", n, got, name)
		}
		if got, ok := ParseShardName(name); !ok || got != n {
			t.Errorf("ParseShardName(%q) = %d, %v; want %d", name, got, ok, n)
		}
	}
	for _, name := range []string{"shard-7.yz", "shard-0000007.yz", "shard-00000a.yz", "shard-+00007.yz",
		"shard--00007.yz", "shard-000007.yz.bak", "shard-000007.YZ", "Shard-000007.yz", "shard-1000000000.yz",
		"x/shard-000007.yz", "shard-000007.yz.123.tmp", ".shard-000007.yz.tmp-1", ""} {
		if n, ok := ParseShardName(name); ok {
			t.Errorf("ParseShardName(%q) = %d, true", name, n)
		}
	}
	for name, want := range map[string]bool{
		".shard-000007.yz.tmp-12": true, "shard-000007.yz.12.tmp": true, ".shard-000007.yz.12.tmp": true,
		"shard-000007.yz": false, ".shard-7.yz.tmp-1": false, ".gen-0001.ckpt.tmp-1": false, "shard-000007.yz.tmp": false,
	} {
		if got := IsTempShard(name); got != want {
			t.Errorf("IsTempShard(%q) = %v", name, got)
		}
	}
}
