"""What the format and metric checks share: psql against the server the
PG* variables name, and a counter of checks that prints the failed ones
and the summary line scripts/test reads ("<what> checks: N passed, M
failed")."""
import os
import subprocess


def psql(script, user=None):
    """Run a psql script (statements on stdin); its unaligned, tuples-only
    output, fields split by |.  An error raises RuntimeError with psql's
    message; user runs it as that role."""
    env = dict(os.environ, PGUSER=user) if user else None
    script = script.rstrip()
    if not script.endswith((";", "\\.")):
        script += ";"           # psql runs a last statement only when it is ended
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1"],
                       input=script + "\n", capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r.stdout.strip()


def psql_rows(script):
    """psql(script) as rows, each a list of its |-separated fields."""
    return [line.split("|") for line in psql(script).splitlines() if line]


class Checks:
    """Counted checks: call with a condition and what it checks."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def __call__(self, ok, what):
        """Count one check; print it when it failed."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAILED:", what)

    def summary(self, what):
        """Print the summary line; the exit status (1 when any failed)."""
        print(f"{what} checks: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
