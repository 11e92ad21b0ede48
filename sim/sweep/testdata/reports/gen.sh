#!/bin/sh
# Regenerates the report fixtures with the real runners (not by hand):
# node:test's tap and junit reporters (Node 20+) over a.test.mjs and
# b.test.mjs, and the JUnit platform console launcher's legacy XML (the
# format Surefire and Gradle write) over src/ClaimTest.java, with
# Debian's junit5 jars (make java-deps). Each run fails: its failures
# are what the fixtures are for.
set -u
cd "$(dirname "$0")"
node --test --test-reporter=tap a.test.mjs b.test.mjs > node.tap
node --test --test-reporter=junit --test-reporter-destination=node-junit.xml a.test.mjs b.test.mjs > /dev/null
tmp=$(mktemp -d)
javac -d "$tmp/classes" -cp /usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar src/ClaimTest.java
java -jar /usr/share/java/junit-platform-console-standalone.jar -cp "$tmp/classes" --select-class shop.ClaimTest \
  --disable-banner --reports-dir "$tmp/reports" > /dev/null
cp "$tmp/reports/TEST-junit-jupiter.xml" junit-console.xml
rm -rf "$tmp"
# The folder they were made in reads /fixtures, and the JVM's properties
# (paths of the machine) are left out; times and host names are kept:
# the parser reads names and outcomes only.
here=$(pwd)
for f in node.tap node-junit.xml junit-console.xml; do
  sed -i -e "s|$here|/fixtures|g" -e '/^<property /d' -e '/^<properties>$/d' -e '/^<\/properties>$/d' -e '/^"\/>$/d' "$f"
done
