# torchquiz images, for the legacy builder too (no BuildKit syntax: no RUN --mount, no heredocs).
#
#   docker build --target bot -t torchquiz-bot .
#   docker build --target executor -t torchquiz-executor .                  # CUDA torch
#   docker build --target executor --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu \
#       -t torchquiz-executor:cpu .                                           # CPU-only hosts
#   docker build --target executor --build-arg WHEELS=deploy/wheels .      # local wheels first
#
# BOT_BASE_IMAGE and EXECUTOR_BASE_IMAGE replace the public base images (an internal mirror,
# or a locally built image where no registry is reachable). Any Debian or Ubuntu with apt and
# a Python >= 3.11 package works. Nothing secret is built in: tokens and the database URL come
# from the environment at run time. The run flags the executor's sandbox needs are in
# docs/executor-service.md.
ARG BOT_BASE_IMAGE=debian:bookworm-slim
ARG EXECUTOR_BASE_IMAGE=nvidia/cuda:12.8.1-base-ubuntu24.04

# ---------------------------------------------------------------- bot (no torch)
FROM ${BOT_BASE_IMAGE} AS bot-build
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
COPY pyproject.toml README.md /src/
COPY bot /src/bot
COPY content /src/content
COPY db /src/db
COPY executors /src/executors
COPY safetext /src/safetext
# pip and setuptools only install: they do not ship in the image.
RUN /opt/venv/bin/pip install "/src[postgres,discord,slack,web]" \
    && /opt/venv/bin/pip uninstall -y -q pip setuptools

FROM ${BOT_BASE_IMAGE} AS bot
ENV DEBIAN_FRONTEND=noninteractive
# One runtime package line for both images, so that on one base image they share the layer.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 ca-certificates libseccomp2 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /var/lib/torchquiz \
        --shell /usr/sbin/nologin torchquiz
COPY --from=bot-build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 TORCHQUIZ_DATA_DIR=/var/lib/torchquiz/data
USER 10001:10001
WORKDIR /var/lib/torchquiz
ENTRYPOINT ["torchquiz"]
CMD ["discord"]

# ---------------------------------------------------------------- executor (torch, sandbox)
FROM ${EXECUTOR_BASE_IMAGE} AS executor-build
# The same first steps as bot-build: on one base image the two builds share these layers.
ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
# Default: torch from the Python package index, a CUDA build. For CPU-only hosts pass
# TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu, or put a torch wheel in a folder of
# the build context and pass it as WHEELS (pip looks there first).
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=
ARG WHEELS=deploy/wheels
COPY ${WHEELS}/ /wheels/
RUN /opt/venv/bin/pip install --find-links /wheels \
        ${TORCH_INDEX_URL:+--extra-index-url=$TORCH_INDEX_URL} "torch==${TORCH_VERSION}"
COPY pyproject.toml README.md /src/
COPY bot /src/bot
COPY content /src/content
COPY db /src/db
COPY executors /src/executors
COPY safetext /src/safetext
RUN /opt/venv/bin/pip install --find-links /wheels "/src[executor]" \
    && /opt/venv/bin/python -c "import torch; print('torch', torch.__version__, torch.version.cuda)" \
    && /opt/venv/bin/pip uninstall -y -q pip setuptools

FROM ${EXECUTOR_BASE_IMAGE} AS executor
ENV DEBIAN_FRONTEND=noninteractive
# libseccomp2: the sandbox's seccomp filter.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 ca-certificates libseccomp2 \
    && rm -rf /var/lib/apt/lists/*
# torchquiz serves HTTP once the zygote is up (serve --user torchquiz); torchquiz-sandbox owns
# no files: each sandboxed child drops to it.
RUN useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin \
        torchquiz \
    && useradd --system --uid 61000 --user-group --no-create-home --shell /usr/sbin/nologin \
        torchquiz-sandbox
COPY --from=executor-build /opt/venv /opt/venv
COPY deploy/executor-entrypoint.sh /usr/local/bin/torchquiz-executor-entrypoint
# The port serve listens on and the HEALTHCHECK asks (override both with -e at run time).
ENV PATH=/opt/venv/bin:$PATH PYTHONUNBUFFERED=1 TORCHQUIZ_EXECUTOR_PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python3", "-m", "executors.cli.health_command"]
# No USER: the zygote must start as root inside the container to build each child's sandbox
# (mount namespace, pivot_root, cgroups, then the drop to torchquiz-sandbox). Everything that
# parses requests and grades results gives up root right after: `serve --user torchquiz`.
# The entrypoint makes the cgroup mounts writable, then runs `torchquiz executor serve`.
ENTRYPOINT ["torchquiz-executor-entrypoint"]
CMD ["--host", "0.0.0.0", "--user", "torchquiz"]
