// Command kube-scheduler is an out-of-tree build of the Kubernetes scheduler: the upstream
// scheduler command from k8s.io/kubernetes/cmd/kube-scheduler/app, built from this module so that
// plugins of your own can be registered with app.WithPlugin without forking Kubernetes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	// Out-of-tree plugins go here, e.g. app.WithPlugin(myplugin.Name, myplugin.New).
	command := app.NewSchedulerCommand()
	os.Exit(cli.Run(command))
}
