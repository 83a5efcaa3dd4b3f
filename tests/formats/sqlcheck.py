"""What the format and metric checks share: psql against the server the
PG* variables name, and a counter of checks that prints the failed ones
and the summary line scripts/test reads ("<what> checks: N passed, M
failed")."""
import os
import subprocess


def psql(script, user=None, port=None):
    """Run a psql script (statements on stdin); its unaligned, tuples-only
    output, fields split by |.  An error raises RuntimeError with psql's
    message; user runs it as that role, port on the server at that port."""
    env = dict(os.environ, PGUSER=user) if user else None
    cmd = ["psql", "-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1"]
    if port:
        cmd += ["-p", str(port)]
    script = script.rstrip()
    if not script.endswith((";", "\\.")):
        script += ";"           # psql runs a last statement only when it is ended
    r = subprocess.run(cmd, input=script + "\n", capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r.stdout.strip()


def psql_rows(script):
    """psql(script) as rows, each a list of its |-separated fields."""
    return [line.split("|") for line in psql(script).splitlines() if line]


class Checks:
    """Counted checks: call with a condition, what it checks and, for a
    failure, a detail.  verbose prints the passed ones too."""

    def __init__(self, verbose=False):
        self.passed = 0
        self.failed = 0
        self.verbose = verbose

    def __call__(self, ok, what, detail=""):
        """Count one check; print it when it failed (or always, verbose)."""
        if ok:
            self.passed += 1
            if self.verbose:
                print("ok   ", what)
        else:
            self.failed += 1
            print("FAILED:", what + (f": {detail}" if detail else ""))

    def summary(self, what):
        """Print the summary line; the exit status (1 when any failed)."""
        print(f"{what} checks: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0
