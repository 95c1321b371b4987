"""``cerebras.appliance.errors``: the exception types appliance runs raise.

Scripts import them to catch cluster failures (``except ApplianceVersionError``) and Model Zoo
callbacks name them; the hierarchy is the real one (every class derives from
``ApplianceClientException``). minitorch_cs raises none of them itself: an emulated run never
talks to a cluster.
"""
from __future__ import annotations

__all__ = ["cerebras_support_msg", "ApplianceClientException", "ApplianceUnknownError",
           "ApplianceCorruptionError", "ApplianceDeadlockError", "ApplianceStallError",
           "ApplianceForceCollectDebug", "ApplianceHealthPollException", "ApplianceNanError",
           "ApplianceTensorDropped", "ApplianceDropModeComplete", "ApplianceRequestCancelled",
           "ApplianceCompilationError", "ApplianceRuntimeServerError",
           "ApplianceServiceInterrupted", "ApplianceRuntimeJobTimeoutError",
           "ApplianceVersionError", "ApplianceCsctlError", "ApplianceUserVenvClusterVolumeError",
           "ApplianceResourceExhausted", "ClusterJobCancelledByCsctl", "ClusterJobScheduleError",
           "ClusterJobInitError"]


def cerebras_support_msg(msg: str) -> str:
    """``msg`` followed by the stack's request to contact Cerebras support."""
    return (f"{msg}\nWe have encountered an internal error from Cerebras Software Stack. For "
            "further help, please reach out to Cerebras support team at support@cerebras.net")


class ApplianceClientException(Exception):
    """Base of every appliance error."""


class ApplianceUnknownError(ApplianceClientException):
    """An error the appliance could not classify."""


class ApplianceCorruptionError(ApplianceClientException):
    """The appliance's state is corrupted."""


class ApplianceDeadlockError(ApplianceClientException):
    """The run stalled (no progress)."""


ApplianceStallError = ApplianceDeadlockError


class ApplianceForceCollectDebug(ApplianceClientException):
    """Debug artifacts were requested."""


class ApplianceHealthPollException(ApplianceCorruptionError):
    """A health poll of the cluster failed."""


class ApplianceNanError(ApplianceClientException):
    """A NaN was detected on the wafer."""


class ApplianceTensorDropped(ApplianceClientException):
    """A tensor's data was dropped (drop-data mode)."""


class ApplianceDropModeComplete(ApplianceClientException):
    """A drop-data run finished."""


class ApplianceRequestCancelled(ApplianceClientException):
    """A request to the appliance was cancelled."""


class ApplianceCompilationError(ApplianceClientException):
    """Compiling the graph failed."""


class ApplianceRuntimeServerError(ApplianceClientException):
    """A runtime server failed."""


class ApplianceServiceInterrupted(ApplianceClientException):
    """The appliance service was interrupted."""


class ApplianceRuntimeJobTimeoutError(ApplianceClientException):
    """The job exceeded its time limit."""


class ApplianceVersionError(ApplianceClientException):
    """The client's and the cluster's software versions do not match."""


class ApplianceCsctlError(ApplianceClientException):
    """Invoking ``csctl`` failed."""


class ApplianceUserVenvClusterVolumeError(ApplianceClientException):
    """The cluster volume holding the user's virtual environment could not be found."""


class ApplianceResourceExhausted(ApplianceClientException):
    """Memory or thread quotas are exhausted."""


class ClusterJobCancelledByCsctl(ApplianceClientException):
    """The job was cancelled with ``csctl``."""


class ClusterJobScheduleError(ApplianceClientException):
    """The cluster lacks capacity to schedule the job."""

    def __init__(self, job_id: str, message: str):
        super().__init__(message)
        self.job_id = job_id
        self.message = message


class ClusterJobInitError(ApplianceClientException):
    """The job failed while initializing."""

    def __init__(self, job_id: str, message: str):
        super().__init__(message)
        self.job_id = job_id
        self.message = message
