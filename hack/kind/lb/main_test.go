package main

import (
	"reflect"
	"testing"
)

// What kind v0.33 writes for three control-plane nodes (its ProxyCDSConfigTemplate and ProxyLDSConfigTemplate).
const cds = `
resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: kube_apiservers
  connect_timeout: 0.25s
  type: STRICT_DNS
  lb_policy: ROUND_ROBIN
  dns_lookup_family: V4_PREFERRED
  health_checks:
  - timeout: 3s
    interval: 2s
    http_health_check:
      path: /healthz
  load_assignment:
    cluster_name: kube_apiservers
    endpoints:
    - lb_endpoints:
      - endpoint:
          address:
            socket_address:
              address: ha-control-plane
              port_value: 6443
      - endpoint:
          address:
            socket_address:
              address: ha-control-plane2
              port_value: 6443
      - endpoint:
          address:
            socket_address:
              address: ha-control-plane3
              port_value: 6443
`

const lds = `
resources:
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: listener_apiserver
  address:
    socket_address:
      address: "0.0.0.0"
      port_value: 6443
`

func TestEndpoints(t *testing.T) {
	want := []string{"ha-control-plane:6443", "ha-control-plane2:6443", "ha-control-plane3:6443"}
	if got := endpoints(cds); !reflect.DeepEqual(got, want) {
		t.Fatalf("endpoints %v, want %v", got, want)
	}
	if got := endpoints("resources: []"); len(got) != 0 {
		t.Fatalf("endpoints of kind's empty file: %v", got)
	}
}

func TestListenPort(t *testing.T) {
	if got := listenPort(lds); got != "6443" {
		t.Fatalf("port %q", got)
	}
	if got := listenPort("resources: []"); got != "" {
		t.Fatalf("port of kind's empty file: %q", got)
	}
}

func TestPickRoundRobinHealthyFirst(t *testing.T) {
	p := &proxy{}
	p.setBackends([]string{"a:1", "b:1", "c:1"})
	p.backends[1].healthy = false
	first, second := p.pick(), p.pick()
	if first[0] != "a:1" || first[len(first)-1] != "b:1" || second[0] != "c:1" {
		t.Fatalf("picks %v then %v", first, second)
	}
	p.setBackends([]string{"c:1", "d:1"})
	if len(p.backends) != 2 || !p.backends[1].healthy {
		t.Fatalf("backends after the files changed: %+v", p.backends)
	}
}
