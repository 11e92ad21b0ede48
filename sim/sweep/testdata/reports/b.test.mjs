import { test } from "node:test";
test("other file passes", () => {});
