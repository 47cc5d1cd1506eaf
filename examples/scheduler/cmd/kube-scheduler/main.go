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

	"kubesched.example/scheduler/pkg/teamnodes"
)

func main() {
	// Out-of-tree plugins are registered here; a profile enables them in its plugins and configures them in its
	// pluginConfig, as any in-tree plugin.
	command := app.NewSchedulerCommand(
		app.WithPlugin(teamnodes.Name, teamnodes.New),
	)
	os.Exit(cli.Run(command))
}
