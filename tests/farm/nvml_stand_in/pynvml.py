"""pynvml.py: a stand-in for nvidia-ml-py's pynvml, as GPU hosts have it (pip's
package, its names returned as str where the old pynvml returned bytes), for the
farm test of a local cluster on such a host: Dask's GPU diagnostics find it and
query the "GPU". Only the calls Debian 12's distributed makes are here."""
from types import SimpleNamespace


class NVMLError(Exception):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


class NVMLError_DriverNotLoaded(NVMLError):
    pass


class NVMLError_Unknown(NVMLError):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_NotFound(NVMLError):
    pass


NVML_DEVICE_MIG_DISABLE, NVML_DEVICE_MIG_ENABLE = 0, 1


def nvmlInit():
    pass


def nvmlSystemGetDriverVersion():
    return "580.0"


def nvmlDeviceGetCount():
    return 1


def nvmlDeviceGetHandleByIndex(index):
    return index


def nvmlDeviceGetHandleByUUID(uuid):
    return 0


def nvmlDeviceGetIndex(handle):
    return 0


def nvmlDeviceGetUUID(handle):
    return "GPU-00000000-0000-0000-0000-000000000000"


def nvmlDeviceGetName(handle):
    return "Stand-in GPU"


def nvmlDeviceGetMigMode(handle):
    raise NVMLError_NotSupported()


def nvmlDeviceGetMemoryInfo(handle):
    return SimpleNamespace(total=16 << 30, used=0, free=16 << 30)


def nvmlDeviceGetUtilizationRates(handle):
    return SimpleNamespace(gpu=0, memory=0)


def nvmlDeviceGetComputeRunningProcesses(handle):
    return []


nvmlDeviceGetComputeRunningProcesses_v2 = nvmlDeviceGetComputeRunningProcesses
