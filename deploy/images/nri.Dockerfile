# syntax=docker/dockerfile:1
# headroom-nri. Build from the repository root:
#   docker build -f deploy/images/nri.Dockerfile -t headroom-nri:0.1.0 .
FROM debian:bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libabsl-dev libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
      nlohmann-json3-dev libspdlog-dev libfmt-dev libcpp-httplib-dev libssl-dev \
      libyaml-cpp-dev libsimdjson-dev libboost1.81-dev prometheus-cpp-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt CMakePresets.json ./
COPY proto proto
COPY shared shared
COPY app app
COPY codec codec
COPY io io
COPY sim sim
COPY data data
COPY cli cli
COPY extender extender
COPY kubelet-hook kubelet-hook
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DHEADROOM_BUILD_TESTS=OFF -DHEADROOM_BUILD_BENCHMARKS=OFF \
    && cmake --build /build --target headroom-extender headroom-nri headroom \
    && cmake --install /build --strip --prefix /out

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libabsl20220623 libgrpc++1.51 libprotobuf32 libspdlog1.10 libfmt9 libcpp-httplib0.11 libssl3 libyaml-cpp0.7 libsimdjson14 libprometheus-cpp-core1.0 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/bin/headroom-nri /usr/local/bin/
# Root: the runtime's NRI socket is owned by root. The DaemonSet drops what it does not need.
EXPOSE 9101
ENTRYPOINT ["/usr/local/bin/headroom-nri"]
