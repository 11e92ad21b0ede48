import assert from "node:assert/strict";
import { describe, test } from "node:test";
test("passes", () => {});
test("fails", () => { assert.equal(1, 2); });
describe("claims", () => {
  test("counted exactly", () => { assert.equal(3, 2, "fetchCouponCode called 3 times"); });
  test("retried", () => {});
});
test("skipped", { skip: true }, () => {});
