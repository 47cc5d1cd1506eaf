// Command envoy stands in for the Envoy proxy that kind runs as the load balancer of a cluster with several
// control-plane nodes, in an image of that name built here (hack/kind/images.sh lb): kind starts it as
// `envoy -c /home/envoy/envoy.yaml` and writes the listener (lds.yaml) and the API servers (cds.yaml) it proxies to
// as Envoy's file-based dynamic configuration, moving new files into place as control-plane nodes join.
//
// It does what kind asks of Envoy, nothing more: it reads the two paths from the bootstrap file, follows both
// files (read again whenever one changes), listens on the listener's port and proxies each TCP connection to the
// next healthy API server, round robin. An API server is healthy once GET /healthz over TLS answers 200 within 2 s
// (every second; unhealthy after 2 failures, healthy after 1 success, as kind's health check), so a node whose
// processes are frozen (docker pause) stops receiving connections while its kernel would still accept them.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

var (
	pathPattern    = regexp.MustCompile(`(?m)^\s*path:\s*(\S+)\s*$`)
	portPattern    = regexp.MustCompile(`(?m)^\s*port_value:\s*(\d+)\s*$`)
	addressPattern = regexp.MustCompile(`(?m)^\s*address:\s*"?([^"\s]+)"?\s*$`)
)

// backend is one API server and its health.
type backend struct {
	address  string
	healthy  bool
	failures int
}

type proxy struct {
	mu       sync.Mutex
	backends []*backend
	next     int
}

// endpoints reads the addresses of the cluster's lb_endpoints in kind's cds.yaml: each `address:` followed by its
// `port_value:`.
func endpoints(cds string) []string {
	var found []string
	section := cds
	if i := strings.Index(cds, "lb_endpoints:"); i >= 0 {
		section = cds[i:]
	}
	lines := strings.Split(section, "\n")
	for i, line := range lines {
		m := addressPattern.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, after := range lines[i+1:] {
			if p := portPattern.FindStringSubmatch(after); p != nil {
				found = append(found, net.JoinHostPort(m[1], p[1]))
				break
			}
		}
	}
	return found
}

// listenPort reads the listener's port_value in kind's lds.yaml ("" when there is none yet).
func listenPort(lds string) string {
	if m := portPattern.FindStringSubmatch(lds); m != nil {
		return m[1]
	}
	return ""
}

// setBackends keeps the health of the addresses that stay; a new address starts healthy, as Envoy assumes. It returns
// the new backends, for their health checks to start.
func (p *proxy) setBackends(addresses []string) []*backend {
	p.mu.Lock()
	defer p.mu.Unlock()
	var added []*backend
	old := map[string]*backend{}
	for _, b := range p.backends {
		old[b.address] = b
	}
	p.backends = nil
	for _, address := range addresses {
		if b, ok := old[address]; ok {
			p.backends = append(p.backends, b)
		} else {
			b := &backend{address: address, healthy: true}
			p.backends = append(p.backends, b)
			added = append(added, b)
		}
	}
	return added
}

// pick returns the backends to try, the next healthy one first (all of them when none is healthy).
func (p *proxy) pick() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.backends)
	var healthy, rest []string
	for i := 0; i < n; i++ {
		b := p.backends[(p.next+i)%n]
		if b.healthy {
			healthy = append(healthy, b.address)
		} else {
			rest = append(rest, b.address)
		}
	}
	if n > 0 {
		p.next = (p.next + 1) % n
	}
	return append(healthy, rest...)
}

func (p *proxy) serve(client net.Conn) {
	defer client.Close()
	for _, address := range p.pick() {
		upstream, err := net.DialTimeout("tcp", address, 250*time.Millisecond)
		if err != nil {
			continue
		}
		defer upstream.Close()
		done := make(chan struct{}, 2)
		go func() { _, _ = io.Copy(upstream, client); closeWrite(upstream); done <- struct{}{} }()
		go func() { _, _ = io.Copy(client, upstream); closeWrite(client); done <- struct{}{} }()
		<-done
		<-done
		return
	}
}

func closeWrite(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}

// watch probes one backend's /healthz every interval until it is no longer one of the backends: unhealthy after 2
// failures in a row, healthy after 1 success. Each backend is probed on its own, so that a frozen one (whose probe
// waits for its timeout) delays nobody else's.
func (p *proxy) watch(b *backend, client *http.Client, interval time.Duration) {
	for {
		ok := false
		if resp, err := client.Get("https://" + b.address + "/healthz"); err == nil {
			ok = resp.StatusCode == http.StatusOK
			resp.Body.Close()
		}
		p.mu.Lock()
		current := false
		for _, other := range p.backends {
			current = current || other == b
		}
		if ok {
			if !b.healthy {
				log.Printf("%s healthy", b.address)
			}
			b.healthy, b.failures = true, 0
		} else if b.failures++; b.failures >= 2 && b.healthy {
			b.healthy = false
			log.Printf("%s unhealthy", b.address)
		}
		p.mu.Unlock()
		if !current {
			return
		}
		time.Sleep(interval)
	}
}

func read(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(data)
}

func main() {
	config := flag.String("c", "/home/envoy/envoy.yaml", "the bootstrap file kind writes")
	flag.Parse()
	bootstrap := read(*config)
	paths := pathPattern.FindAllStringSubmatch(bootstrap, -1)
	if len(paths) < 2 {
		log.Fatalf("%s names no cds and lds paths", *config)
	}
	cdsPath, ldsPath := paths[0][1], paths[1][1]
	if strings.Contains(cdsPath, "lds") {
		cdsPath, ldsPath = ldsPath, cdsPath
	}
	p := &proxy{}
	// Kind asks Envoy for a 3 s timeout every 2 s; 2 s every second finds a frozen API server sooner.
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}, //nolint:gosec // health checks only, as kind's
	}
	var listener net.Listener
	var listening, cds, lds string
	for {
		if c, l := read(cdsPath), read(ldsPath); c != cds || l != lds {
			cds, lds = c, l
			for _, b := range p.setBackends(endpoints(cds)) {
				go p.watch(b, client, time.Second)
			}
			log.Printf("backends %v", endpoints(cds))
			if port := listenPort(lds); port != listening && port != "" {
				if listener != nil {
					listener.Close()
				}
				var err error
				listener, err = (&net.ListenConfig{}).Listen(context.Background(), "tcp", ":"+port)
				if err != nil {
					log.Fatalf("listen on %s: %v", port, err)
				}
				listening = port
				log.Printf("listening on :%s", port)
				go func(l net.Listener) {
					for {
						conn, err := l.Accept()
						if err != nil {
							return
						}
						go p.serve(conn)
					}
				}(listener)
			}
		}
		time.Sleep(time.Second)
	}
}

func init() {
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	log.SetPrefix(fmt.Sprintf("envoy(kubesched) %d: ", os.Getpid()))
}
