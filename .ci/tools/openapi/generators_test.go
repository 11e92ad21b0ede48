package openapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rewardsim.invalid/ci-tools/internal/repo"
)

// npmBin is where `make gen-deps` installs the pinned npm generators.
func npmBin(t *testing.T, tool string) string {
	root, err := repo.Root()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "bin", "npm", "node_modules", ".bin", tool)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("REWARDSIM_REQUIRE_GENERATORS") != "" {
			t.Fatalf("%s not installed: make gen-deps installs it under bin/npm", tool)
		}
		t.Skipf("%s not installed (make gen-deps)", tool)
	}
	return p
}

// tsUse types real values with the generated types; each @ts-expect-error
// line must fail to compile, so a document that lost its shapes (every
// field any) fails this test too.
const tsUse = `import type { paths, webhooks } from "./public";
import type { paths as control } from "./control";

type Push = webhooks["couponStatus"]["post"]["requestBody"]["content"]["application/json"];
export const push: Push = {
  channelName: "DEMOBANK", offerId: "OFF-1", eventType: "COUPON_INVALIDATED",
  expiredDate: "2026-01-01T00:00:00+05:30", reason: "OUT_OF_STOCK", reasonMessage: "gone", referenceId: "r-1",
};
// @ts-expect-error: not one of the contract's reasons
export const badPush: Push = { ...push, reason: "BORED" };

type Coupon = paths["/api/fetchCouponCode"]["post"]["requestBody"]["content"]["application/json"];
export const coupon: Coupon = { offerId: "OFF-1", virtualId: "VU-1", channelName: "DEMOBANK", extTransactionId: "T-1", coinsUsed: "10" };
// @ts-expect-error: extTransactionId is required (CPN-1)
export const badCoupon: Coupon = { offerId: "OFF-1", virtualId: "VU-1", channelName: "DEMOBANK", coinsUsed: "10" };

type Fault = control["/__sim/faults"]["post"]["requestBody"];
export const fault: NonNullable<Fault>["content"]["application/json"] = { endpoint: "GetAuthToken", action: { kind: "internal-error" } };
export type ControlPaths = keyof control;
`

// Independent generators accept both documents: openapi-typescript turns
// the public and the control document into types that tsc --strict
// compiles, with values typed against them.
func TestOpenAPITypescriptOutputCompilesStrict(t *testing.T) {
	gen, tsc := npmBin(t, "openapi-typescript"), npmBin(t, "tsc")
	bin, public := buildDoc(t)
	control := fetchServedPath(t, bin, "/__sim/openapi-control.json")
	newValidator(t, control) // the control document is OpenAPI 3.1 too
	dir := t.TempDir()
	for name, doc := range map[string][]byte{"public": public, "control": control} {
		in := filepath.Join(dir, name+".json")
		if err := os.WriteFile(in, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(gen, in, "-o", filepath.Join(dir, name+".ts")).CombinedOutput(); err != nil {
			t.Fatalf("openapi-typescript %s: %v\n%s", name, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "use.ts"), []byte(tsUse), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tsc, "--strict", "--noEmit", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
		"public.ts", "control.ts", "use.ts")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		ts, _ := os.ReadFile(filepath.Join(dir, "public.ts"))
		t.Fatalf("tsc --strict: %v\n%s\n--- public.ts (head)\n%s", err, out, head(string(ts), 60))
	}
}

func head(s string, lines int) string {
	parts := strings.SplitN(s, "\n", lines+1)
	if len(parts) > lines {
		parts = parts[:lines]
	}
	return strings.Join(parts, "\n")
}
