# env.py: where the programs are and the environments they run in: the build's
# cudadenoise-eval and cudadenoise-eval-opencv, FFmpeg (on the PATH, or from the
# .gpu-runtime bundle on a GPU host, see ../shared/gpu/README.md), the OpenCV
# libraries staged beside the helper (scripts/stage-eval.sh), and the facts about
# the machine every figure and table states: GPU, CPU, date, versions, commit.
import datetime
import json
import os
import platform
import shutil
import subprocess


class HarnessError(RuntimeError):
    pass


def _bundle_env(root):
    """The environment runtime-env.sh sets up, captured in a bash subshell (our own
    process keeps its environment: the bundle puts Debian libraries first)."""
    script = os.path.join(root, '.gpu-runtime', 'runtime-env.sh')
    if not os.path.isfile(script):
        return None
    out = subprocess.run(['bash', '-c', 'source "$1" >/dev/null && env -0', 'bash', script],
                         cwd=root, stdout=subprocess.PIPE, check=True).stdout
    env = {}
    for item in out.split(b'\0'):
        if b'=' in item:
            k, v = item.split(b'=', 1)
            env[k.decode()] = v.decode()
    return env


class Env:
    def __init__(self, root, build, use_bundle='auto'):
        self.root = root
        self.build = os.path.join(root, build) if not os.path.isabs(build) else build
        self.eval = os.path.join(self.build, 'tools', 'eval', 'cudadenoise-eval')
        if not os.access(self.eval, os.X_OK):
            raise HarnessError(f'{self.eval} not found: build first (scripts/setup.sh) or unpack the stage')
        opencv = os.path.join(self.build, 'tools', 'eval', 'cudadenoise-eval-opencv')
        self.opencv = opencv if os.access(opencv, os.X_OK) else None
        base = dict(os.environ)
        self.bundle = False
        if use_bundle == 'yes' or (use_bundle == 'auto' and shutil.which('ffmpeg') is None):
            env = _bundle_env(root)
            if env is None and use_bundle == 'yes':
                raise HarnessError('.gpu-runtime/runtime-env.sh not found')
            if env is not None:
                base, self.bundle = env, True
        libs = os.path.join(self.build, 'tools', 'eval', 'opencv-libs')
        if os.path.isdir(libs):   # the staged OpenCV closure
            base['LD_LIBRARY_PATH'] = libs + (':' + base['LD_LIBRARY_PATH'] if base.get('LD_LIBRARY_PATH') else '')
        self.env = base
        self.ffmpeg = shutil.which('ffmpeg', path=base.get('PATH'))
        if self.ffmpeg is None:
            raise HarnessError('no ffmpeg: install it (Debian: ffmpeg) or carry .gpu-runtime')
        # the CPUs this process may run on (a container's cpuset), else all of them
        self.threads = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else (os.cpu_count() or 1)

    def run(self, cmd, what, capture=True):
        p = subprocess.run(cmd, env=self.env, stdout=subprocess.PIPE if capture else None,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise HarnessError(f'{what} failed (exit {p.returncode}): {" ".join(cmd)}\n{p.stderr.strip()[-2000:]}')
        return p.stdout

    def eval_json(self, args, what):
        """Runs cudadenoise-eval ARGS and returns its JSON lines."""
        out = self.run([self.eval] + args, what or args[0])
        return [json.loads(line) for line in out.splitlines() if line.startswith('{')]


def _first_line(cmd, env):
    try:
        return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=30).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return ''


def cpu_model():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return ' '.join(line.split(':', 1)[1].split())
    except OSError:
        pass
    return platform.processor() or 'unknown CPU'


def machine_facts(env, info):
    """What produced the figures: a dict the report and every figure caption use."""
    facts = {
        'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d'),
        'cpu': cpu_model(),
        'cpu_threads': env.threads,
        'ffmpeg': _first_line([env.ffmpeg, '-hide_banner', '-version'], env.env),
        'ffmpeg_from': 'the .gpu-runtime bundle (Debian 12 FFmpeg 5.1)' if env.bundle else env.ffmpeg,
        'python': platform.python_version(),
        'commit': 'unknown',
    }
    # the commit the programs were built from: the one stage-eval.sh recorded (a GPU
    # host's copy of the checkout may carry another commit's .git), else the checkout's
    c = None
    stage_info = os.path.join(env.build, 'tools', 'eval', 'STAGE_INFO')
    if os.path.isfile(stage_info):
        with open(stage_info) as f:
            c = 'built from ' + f.read().strip()
    if not c:
        c = _first_line(['git', '-C', env.root, 'describe', '--always', '--dirty'], None)
    facts['commit'] = c or 'unknown'
    if info.get('cuda_available'):
        drv = _first_line(['nvidia-smi', '--query-gpu=driver_version', '--format=csv,noheader'], None)
        cuda = info.get('cuda_driver', 0)
        facts['gpu'] = info['gpu']
        facts['gpu_long'] = (f"{info['gpu']} ({info['gpu_sms']} SMs, {info['gpu_memory_gib']:.0f} GiB, "
                             f"driver {drv or '?'}, CUDA {cuda // 1000}.{(cuda % 1000) // 10})")
    else:
        facts['gpu'] = None
        facts['gpu_long'] = 'none (' + info.get('gpu_why', 'no CUDA') + ')'
    return facts


def footer_lines(facts):
    gpu = facts['gpu_long'] if facts['gpu'] else 'no GPU: CPU backend only'
    return [f"GPU: {gpu}",
            f"CPU: {facts['cpu']}, {facts['cpu_threads']} threads | {facts['date']} | cudadenoise {facts['commit']}"]
